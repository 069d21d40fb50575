// Wiring (docs/model.md, "Wiring"): kFull and kRails are closed forms, no
// tables; kExplicit keeps its ports by switch and by accelerator, in memory
// proportional to the ports listed.
#include "flux/core/wiring.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "flux/core/error.hpp"
#include "flux/core/system.hpp"

namespace flux::core {
namespace {

void check_planes(std::uint32_t planes) {
  if (planes < 1 || planes > kMaxSwitches) {
    throw InputError("", "switches", std::to_string(planes),
                     "must be an integer between 1 and " + std::to_string(kMaxSwitches));
  }
}

void check_accelerators(std::uint32_t n) {
  if (n < 1) throw InputError("", "accelerators", "0", "a wiring needs an accelerator");
}

void check_radix(std::uint32_t radix) {
  if (radix < 2 || radix > kMaxOcsRadix) {
    throw InputError("", "ocs_radix", std::to_string(radix),
                     "must be an integer between 2 and " + std::to_string(kMaxOcsRadix));
  }
}

}  // namespace

std::string_view to_string(WiringKind kind) {
  switch (kind) {
    case WiringKind::kFull:
      return "full";
    case WiringKind::kRails:
      return "rails";
    case WiringKind::kExplicit:
      return "file";
  }
  return "?";
}

Wiring Wiring::full(std::uint32_t accelerators, std::uint32_t planes) {
  check_accelerators(accelerators);
  check_planes(planes);
  Wiring w;
  w.kind_ = WiringKind::kFull;
  w.accelerators_ = accelerators;
  w.switches_ = planes;
  w.radix_ = accelerators;
  w.planes_ = planes;
  w.domain_size_ = 1;
  w.pods_ = 1;
  w.groups_ = 1;
  return w;
}

Wiring Wiring::rails(std::uint32_t accelerators, std::uint32_t domain_size, std::uint32_t planes,
                     std::uint32_t radix) {
  check_accelerators(accelerators);
  check_planes(planes);
  check_radix(radix);
  if (domain_size < 1 || accelerators % domain_size != 0) {
    throw InputError("", "scaleup_size", std::to_string(domain_size),
                     "rails need scale-up domains that tile the " + std::to_string(accelerators) +
                         " accelerators (a divisor of it)");
  }
  const std::uint32_t domains = accelerators / domain_size;
  const std::uint32_t pods = (domains + radix - 1) / radix;
  const std::uint64_t switches = std::uint64_t{planes} * domain_size * pods;
  if (switches > kMaxSwitches) {
    throw InputError("", "switches", std::to_string(switches) + " rail switches",
                     "more than " + std::to_string(kMaxSwitches) +
                         " (planes x scale-up size x pods): use fewer planes or a larger radix");
  }
  Wiring w;
  w.kind_ = WiringKind::kRails;
  w.accelerators_ = accelerators;
  w.switches_ = static_cast<std::uint32_t>(switches);
  w.radix_ = radix;
  w.planes_ = planes;
  w.domain_size_ = domain_size;
  w.pods_ = pods;
  // Groups: every (pod, rail) but the rails of a last pod's missing domains
  // (none: every pod holds at least one whole domain).
  w.groups_ = pods * domain_size;
  return w;
}

Wiring Wiring::from_ports(std::uint32_t accelerators, std::uint32_t radix,
                          std::vector<std::vector<Rank>> ports) {
  check_accelerators(accelerators);
  check_radix(radix);
  if (ports.empty() || ports.size() > kMaxSwitches) {
    throw InputError("", "switches", std::to_string(ports.size()) + " switches",
                     "must be between 1 and " + std::to_string(kMaxSwitches));
  }
  Wiring w;
  w.kind_ = WiringKind::kExplicit;
  w.accelerators_ = accelerators;
  w.switches_ = static_cast<std::uint32_t>(ports.size());
  w.radix_ = radix;
  // Memory in proportion to the ports listed, not to `accelerators` (a
  // file may declare billions).
  w.port_begin_.reserve(ports.size() + 1);
  w.port_begin_.push_back(0);
  for (std::size_t k = 0; k < ports.size(); ++k) {
    const std::string at = "switches[" + std::to_string(k) + "].ports";
    if (ports[k].size() > radix) {
      throw InputError("", at, std::to_string(ports[k].size()) + " ports",
                       "more than the radix, " + std::to_string(radix));
    }
    std::vector<std::pair<Rank, std::size_t>> order;  // (rank, entry), to find repeats
    order.reserve(ports[k].size());
    for (std::size_t i = 0; i < ports[k].size(); ++i) {
      const std::uint32_t r = ports[k][i].value();
      if (r >= accelerators) {
        throw InputError("", at + "[" + std::to_string(i) + "]", std::to_string(r),
                         "not an accelerator (there are " + std::to_string(accelerators) + ")");
      }
      order.emplace_back(ports[k][i], i);
    }
    std::sort(order.begin(), order.end());
    std::size_t repeat = ports[k].size();  // the first entry, in file order, seen before
    for (std::size_t i = 1; i < order.size(); ++i) {
      if (order[i].first == order[i - 1].first) repeat = std::min(repeat, order[i].second);
    }
    if (repeat < ports[k].size()) {
      throw InputError("", at + "[" + std::to_string(repeat) + "]",
                       std::to_string(ports[k][repeat].value()), "on this switch twice");
    }
    for (const auto& [r, i] : order) {
      w.port_rank_.push_back(r);
      w.links_.emplace_back(r, SwitchId{static_cast<std::uint32_t>(k)});
    }
    w.port_begin_.push_back(w.port_rank_.size());
  }
  std::sort(w.links_.begin(), w.links_.end());  // by accelerator, then switch
  w.find_groups();
  return w;
}

void Wiring::find_groups() {
  const auto fail = [&](std::string problem) {
    grouping_problem_ = std::move(problem);
    group_of_.clear();
    group_switch_.clear();
    groups_ = 0;
    planes_ = 0;
  };
  // Every accelerator on planes_ switches: links_ holds planes_ per
  // accelerator, in order, so accelerator r's are links_[r * planes_, ...).
  std::uint32_t r = 0;
  for (std::size_t i = 0; i < links_.size(); ++r) {
    if (links_[i].first.value() != r) {
      return fail("accelerator " + std::to_string(r) + " is on no switch");
    }
    std::size_t j = i;
    while (j < links_.size() && links_[j].first.value() == r) ++j;
    if (r == 0) planes_ = static_cast<std::uint32_t>(j - i);
    if (j - i != planes_) {
      return fail("accelerator " + std::to_string(r) + " is on " + std::to_string(j - i) +
                  " switches, accelerator 0 on " + std::to_string(planes_));
    }
    i = j;
  }
  if (r != accelerators_) return fail("accelerator " + std::to_string(r) + " is on no switch");
  // Any two accelerators on one switch share all their switches.
  const auto links_of = [&](std::uint32_t a) {
    return links_.begin() + static_cast<std::ptrdiff_t>(std::size_t{a} * planes_);
  };
  for (std::uint32_t k = 0; k < switches_; ++k) {
    if (port_begin_[k] == port_begin_[k + 1]) continue;  // no ports: no group uses it
    const std::uint32_t first = port_rank_[port_begin_[k]].value();
    for (std::uint64_t i = port_begin_[k] + 1; i < port_begin_[k + 1]; ++i) {
      const std::uint32_t other = port_rank_[i].value();
      for (std::uint32_t p = 0; p < planes_; ++p) {
        if (links_of(first)[p].second != links_of(other)[p].second) {
          return fail("accelerators " + std::to_string(first) + " and " + std::to_string(other) +
                      " share switch " + std::to_string(k) + " but not all their switches");
        }
      }
    }
  }
  // Groups numbered by their lowest accelerator.
  group_of_.assign(accelerators_, 0);
  std::vector<std::uint32_t> group_of_switch(switches_, 0xffffffffu);
  for (std::uint32_t a = 0; a < accelerators_; ++a) {
    const std::uint32_t k = links_of(a)->second.value();
    if (group_of_switch[k] == 0xffffffffu) {
      group_of_switch[k] = groups_++;
      for (std::uint32_t p = 0; p < planes_; ++p) group_switch_.push_back(links_of(a)[p].second);
    }
    group_of_[a] = group_of_switch[k];
  }
}

std::uint32_t Wiring::group_of(Rank r) const {
  switch (kind_) {
    case WiringKind::kFull:
      return 0;
    case WiringKind::kRails:
      return rails_group(r, domain_size_, radix_);
    case WiringKind::kExplicit:
      return group_of_.at(r.value());
  }
  return 0;
}

SwitchId Wiring::switch_of(std::uint32_t group, std::uint32_t plane) const {
  switch (kind_) {
    case WiringKind::kFull:
      return SwitchId{plane};
    case WiringKind::kRails:
      return SwitchId{group * planes_ + plane};
    case WiringKind::kExplicit:
      return group_switch_.at(std::size_t{group} * planes_ + plane);
  }
  return SwitchId{};
}

bool Wiring::attached(SwitchId k, Rank r) const {
  if (k.value() >= switches_ || r.value() >= accelerators_) return false;
  switch (kind_) {
    case WiringKind::kFull:
      return true;
    case WiringKind::kRails: {
      return rail_of_switch(k) == rail_of(r) && pod_of_switch(k) == pod_of(r);
    }
    case WiringKind::kExplicit: {
      const auto begin = port_rank_.begin() + static_cast<std::ptrdiff_t>(port_begin_[k.value()]);
      const auto end = port_rank_.begin() + static_cast<std::ptrdiff_t>(port_begin_[k.value() + 1]);
      return std::binary_search(begin, end, r);
    }
  }
  return false;
}

std::vector<SwitchId> Wiring::switches_of(Rank r) const {
  std::vector<SwitchId> out;
  if (r.value() >= accelerators_) return out;
  switch (kind_) {
    case WiringKind::kFull:
      for (std::uint32_t k = 0; k < switches_; ++k) out.emplace_back(k);
      break;
    case WiringKind::kRails: {
      for (std::uint32_t p = 0; p < planes_; ++p) {
        out.emplace_back((pod_of(r) * domain_size_ + rail_of(r)) * planes_ + p);
      }
      break;
    }
    case WiringKind::kExplicit: {
      auto it = std::lower_bound(links_.begin(), links_.end(), std::pair{r, SwitchId{0}});
      for (; it != links_.end() && it->first == r; ++it) out.push_back(it->second);
      break;
    }
  }
  return out;
}

std::vector<Rank> Wiring::ports(SwitchId k) const {
  std::vector<Rank> out;
  if (k.value() >= switches_) return out;
  switch (kind_) {
    case WiringKind::kFull:
      for (std::uint32_t r = 0; r < accelerators_; ++r) out.emplace_back(r);
      break;
    case WiringKind::kRails: {
      const std::uint32_t pod = pod_of_switch(k);
      const std::uint32_t rail = rail_of_switch(k);
      const std::uint32_t domains = accelerators_ / domain_size_;
      const std::uint32_t last = std::min(domains, (pod + 1) * radix_);
      for (std::uint32_t d = pod * radix_; d < last; ++d) out.emplace_back(d * domain_size_ + rail);
      break;
    }
    case WiringKind::kExplicit:
      out.assign(port_rank_.begin() + static_cast<std::ptrdiff_t>(port_begin_[k.value()]),
                 port_rank_.begin() + static_cast<std::ptrdiff_t>(port_begin_[k.value() + 1]));
      break;
  }
  return out;
}

std::vector<SwitchId> Wiring::joining(Rank a, Rank b) const {
  std::vector<SwitchId> out;
  const std::vector<SwitchId> of_a = switches_of(a);
  if (a == b) return of_a;
  const std::vector<SwitchId> of_b = switches_of(b);
  std::set_intersection(of_a.begin(), of_a.end(), of_b.begin(), of_b.end(),
                        std::back_inserter(out));
  return out;
}

std::uint64_t Wiring::ports_used() const {
  switch (kind_) {
    case WiringKind::kFull:
    case WiringKind::kRails:
      return std::uint64_t{accelerators_} * planes_;  // one link per plane each
    case WiringKind::kExplicit:
      return port_rank_.size();
  }
  return 0;
}

}  // namespace flux::core

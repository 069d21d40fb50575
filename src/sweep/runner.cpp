// Points in child processes (include/flux/sweep/runner.hpp). The parent
// stays single-threaded and only forks, polls the children's pipes and
// reaps them: a child computes its point, writes the encoded outcome to its
// pipe and leaves with _exit (no destructors, no atexit handlers that could
// touch the parent's files). A child whose parent dies is killed
// (PR_SET_PDEATHSIG), so kill -9 of a sweep leaves no point running on.
//
// Admission: a point starts when fewer than `jobs` run and its memory
// estimate fits in the budget minus the estimates of those running; the
// candidates are tried largest first, so the big points are not left to
// run alone at the end. A point larger than the whole budget is never run.
#include "flux/sweep/runner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <new>

#include "flux/core/error.hpp"
#include "flux/core/format.hpp"

namespace flux::sweep {
namespace {

using Clock = std::chrono::steady_clock;

using core::seconds_since;

struct Child {
  std::size_t index = 0;
  pid_t pid = -1;
  int fd = -1;
  std::string data;
  Clock::time_point start;
  bool killed_for_time = false;
};

Child start(const std::vector<Point>& points, std::size_t index) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw core::Error(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw core::Error(std::string("cannot fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::close(fds[0]);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    const std::string out = encode(run_point(points[index]));
    std::size_t done = 0;
    while (done < out.size()) {
      const ssize_t n = ::write(fds[1], out.data() + done, out.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) ::_exit(1);
      done += static_cast<std::size_t>(n);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  return Child{index, pid, fds[0], {}, Clock::now(), false};
}

Outcome reap(Child& c, const RunOptions& o) {
  ::close(c.fd);
  int status = 0;
  while (::waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
  }
  Outcome out;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && !c.data.empty()) {
    out = decode(c.data);
  } else if (c.killed_for_time) {
    out.status = PointStatus::kTimeout;
    out.error = "killed after the point time limit of " + std::to_string(o.point_timeout_s) + " s";
  } else if (WIFSIGNALED(status)) {
    out.status = PointStatus::kCrashed;
    out.error = std::string("died of signal ") + std::to_string(WTERMSIG(status)) + " (" +
                ::strsignal(WTERMSIG(status)) + ")" +
                (WTERMSIG(status) == SIGKILL ? ": the kernel's out-of-memory killer?" : "");
  } else {
    out.status = PointStatus::kCrashed;
    out.error = "its process exited with status " + std::to_string(WEXITSTATUS(status));
  }
  out.wall_s = seconds_since(c.start);
  return out;
}

}  // namespace

Outcome run_point(const Point& point) {
  Outcome o;
  if (std::optional<Outcome> refused = refuse(point, 0)) return *refused;
  try {
    if (point.robust) {
      o.metrics = eval::robust_csv_row(eval::run_robust_point(*point.robust));
    } else {
      o.metrics = eval::csv_row(eval::measure(point.config));
    }
  } catch (const std::bad_alloc&) {
    o.status = PointStatus::kMemory;
    o.error = "out of memory";
  } catch (const core::InputError& e) {
    // A combination the job cannot run (a send with no route, a fold the
    // wiring cannot lift): invalid, as one that does not validate.
    o.status = PointStatus::kInvalid;
    o.error = e.what();
  } catch (const std::exception& e) {
    o.status = PointStatus::kError;
    o.error = e.what();
  }
  return o;
}

std::optional<Outcome> refuse(const Point& point, std::uint64_t memory_budget_bytes) {
  Outcome o;
  if (!point.invalid.empty()) {
    o.status = PointStatus::kInvalid;
    o.error = point.invalid;
    return o;
  }
  if (memory_budget_bytes != 0 && point.memory_bytes > memory_budget_bytes) {
    o.status = PointStatus::kMemory;
    o.error = "needs about " + core::format_bytes(static_cast<double>(point.memory_bytes)) +
              ", over the memory budget of " +
              core::format_bytes(static_cast<double>(memory_budget_bytes)) + " (--memory-budget)";
    return o;
  }
  return std::nullopt;
}

std::vector<std::size_t> largest_first(const std::vector<Point>& points,
                                       std::vector<std::size_t> todo) {
  std::stable_sort(todo.begin(), todo.end(), [&](std::size_t a, std::size_t b) {
    return points[a].memory_bytes > points[b].memory_bytes;
  });
  return todo;
}

std::string encode(const Outcome& o) {
  std::string error = o.error;
  std::replace(error.begin(), error.end(), '\n', ' ');
  return std::to_string(static_cast<int>(o.status)) + "\n" + error + "\n" + o.metrics + "\n";
}

Outcome decode(const std::string& s) {
  Outcome o;
  const std::size_t a = s.find('\n');
  const std::size_t b = a == std::string::npos ? a : s.find('\n', a + 1);
  const std::size_t c = b == std::string::npos ? b : s.find('\n', b + 1);
  int status = -1;
  if (c != std::string::npos) status = std::atoi(s.substr(0, a).c_str());
  if (status < 0 || status > static_cast<int>(PointStatus::kCrashed)) {
    o.status = PointStatus::kCrashed;
    o.error = "its result was cut short";
    return o;
  }
  o.status = static_cast<PointStatus>(status);
  o.error = s.substr(a + 1, b - a - 1);
  o.metrics = s.substr(b + 1, c - b - 1);
  return o;
}

void run_points(
    const std::vector<Point>& points, const std::vector<std::size_t>& todo,
    const RunOptions& options,
    const std::function<void(std::size_t, const Outcome&, const RunProgress&)>& on_done) {
  const Clock::time_point t0 = Clock::now();
  std::vector<std::size_t> pending = largest_first(points, todo);
  std::vector<Child> running;
  std::uint64_t in_use = 0;
  RunProgress progress;
  progress.total = todo.size();
  const auto finish = [&](std::size_t index, const Outcome& o) {
    ++progress.done;
    if (o.status != PointStatus::kOk) ++progress.failed;
    progress.running = running.size();
    progress.elapsed_s = seconds_since(t0);
    on_done(index, o, progress);
  };
  const unsigned jobs = std::max(1u, options.jobs);
  const auto stopped = [&] {
    if (!options.stop || !options.stop()) return false;
    for (Child& c : running) {
      ::kill(c.pid, SIGKILL);
      (void)reap(c, options);
    }
    return true;
  };
  while (!pending.empty() || !running.empty()) {
    if (stopped()) return;
    // Start what fits, largest first.
    for (auto it = pending.begin(); it != pending.end() && running.size() < jobs;) {
      const Point& p = points[*it];
      if (std::optional<Outcome> refused = refuse(p, options.memory_budget_bytes)) {
        const std::size_t index = *it;
        it = pending.erase(it);
        finish(index, *refused);
        continue;
      }
      if (options.memory_budget_bytes != 0 &&
          in_use + p.memory_bytes > options.memory_budget_bytes) {
        ++it;
        continue;
      }
      running.push_back(start(points, *it));
      in_use += p.memory_bytes;
      it = pending.erase(it);
    }
    if (running.empty()) continue;
    std::vector<pollfd> fds;
    for (const Child& c : running) fds.push_back(pollfd{c.fd, POLLIN, 0});
    int wait_ms = -1;
    if (options.point_timeout_s > 0) {
      double least = options.point_timeout_s;
      for (const Child& c : running) {
        least = std::min(least, options.point_timeout_s - seconds_since(c.start));
      }
      wait_ms = std::max(0, static_cast<int>(least * 1e3) + 1);
    }
    if (options.stop) wait_ms = wait_ms < 0 ? 100 : std::min(wait_ms, 100);
    if (::poll(fds.data(), fds.size(), wait_ms) < 0 && errno != EINTR) {
      throw core::Error(std::string("poll: ") + std::strerror(errno));
    }
    for (std::size_t k = running.size(); k-- > 0;) {
      Child& c = running[k];
      bool ended = false;
      if ((fds[k].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
        char buf[65536];
        const ssize_t n = ::read(c.fd, buf, sizeof buf);
        if (n > 0) c.data.append(buf, static_cast<std::size_t>(n));
        ended = n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN);
      }
      if (!ended && !c.killed_for_time && options.point_timeout_s > 0 &&
          seconds_since(c.start) >= options.point_timeout_s) {
        ::kill(c.pid, SIGKILL);
        c.killed_for_time = true;
      }
      if (!ended) continue;
      Child done = c;
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
      in_use -= points[done.index].memory_bytes;
      finish(done.index, reap(done, options));
    }
  }
}

}  // namespace flux::sweep

// The steps of a sweep into a directory that `flux sweep` and flux.sweep
// (python/) share (include/flux/frontend/sweep_driver.hpp).
#include "flux/frontend/sweep_driver.hpp"

#include <optional>
#include <set>

#include "flux/core/error.hpp"
#include "flux/frontend/gnuplot.hpp"
#include "flux/io/output.hpp"
#include "flux/io/save.hpp"

namespace flux::frontend {

void check_sweep_outputs(const sweep::SweepSpec& spec, const std::vector<sweep::Point>& points,
                         const std::filesystem::path& dir, const std::string& spec_file,
                         bool plot) {
  std::vector<io::OutputSpec> outputs = {
      {dir / (spec.name + ".csv"), "the sweep's CSV", "-o", false},
      {dir / (spec.name + "-summary.txt"), "the sweep's summary", "-o", false}};
  for (const sweep::PlotSpec& p : spec.plots) {
    const std::string stem = sweep::plot_stem(spec, p);
    outputs.push_back({dir / (stem + ".gp"), "a plot's script", "-o", false});
    if (plot) outputs.push_back({dir / (stem + ".png"), "a plot", "-o", false});
    if (plot && p.svg) outputs.push_back({dir / (stem + ".svg"), "a plot", "-o", false});
  }
  std::vector<io::InputSpec> inputs;
  if (!spec_file.empty()) inputs.push_back({spec_file, "the sweep file"});
  std::set<std::string> routing;
  for (const sweep::Point& p : points) {
    const workload::RoutingSpec& r = p.config.job.training.moe.routing;
    if (r.kind == workload::RoutingKind::kFile && routing.insert(r.file).second) {
      inputs.push_back({r.file, "a routing file (axes.routing)"});
    }
  }
  io::check_outputs(outputs, inputs);
}

std::vector<std::size_t> points_to_run(const std::vector<sweep::Point>& points,
                                       const sweep::ResultFile& results, bool retry_failed,
                                       std::size_t& resumed) {
  std::vector<std::size_t> todo;
  resumed = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto it = results.finished().find(points[i].key());
    const bool redo = it == results.finished().end() || (retry_failed && it->second != "ok");
    if (redo) {
      todo.push_back(i);
    } else {
      ++resumed;
    }
  }
  return todo;
}

std::string finish_sweep(const sweep::SweepSpec& spec, const std::vector<sweep::Point>& points,
                         sweep::ResultFile& results, const std::filesystem::path& dir) {
  std::vector<std::string> order;
  order.reserve(points.size());
  for (const sweep::Point& p : points) order.push_back(p.key());
  results.rewrite_sorted(order);
  const std::string summary = sweep::summary(spec, points, results.rows());
  io::save_file(dir / (spec.name + "-summary.txt"), [&](std::ostream& out) { out << summary; });
  return summary;
}

void write_plots(const sweep::SweepSpec& spec, const std::vector<sweep::Point>& points,
                 const std::map<std::string, std::string>& rows, const std::filesystem::path& dir,
                 bool run, std::FILE* report) {
  bool have_gnuplot = run;
  for (const sweep::PlotSpec& p : spec.plots) {
    const std::string stem = sweep::plot_stem(spec, p);
    // The script as a user reruns it in the directory: gnuplot <stem>.gp.
    const std::string script =
        sweep::gnuplot_script(spec, p, points, rows, stem + ".png", p.svg ? stem + ".svg" : "");
    io::save_file(dir / (stem + ".gp"), [&](std::ostream& out) { out << script; });
    if (!have_gnuplot) continue;
    const std::filesystem::path png_file = dir / (stem + ".png");
    const std::filesystem::path svg_file = dir / (stem + ".svg");
    io::OutputFile png(io::resolve_output(png_file, false));
    std::optional<io::OutputFile> svg;
    std::vector<int> fds = {png.fd()};
    if (p.svg) {
      svg.emplace(io::resolve_output(svg_file, false));
      fds.push_back(svg->fd());
    }
    // gnuplot opens its outputs by name: the descriptors passed to it (3, 4).
    have_gnuplot = run_gnuplot(sweep::gnuplot_script(spec, p, points, rows, "/proc/self/fd/3",
                                                     p.svg ? "/proc/self/fd/4" : ""),
                               fds);
    if (!have_gnuplot) break;
    check_plot(png, png_file, kPngEndView);
    if (svg) check_plot(*svg, svg_file, "</svg>");
    png.commit();
    if (svg) svg->commit();
    std::fprintf(report, "plotted %s%s\n", png_file.string().c_str(),
                 svg ? (" and " + svg_file.string()).c_str() : "");
  }
  if (run && !have_gnuplot && !spec.plots.empty()) {
    std::fprintf(report, "gnuplot is not installed: no plots (apt-get install gnuplot-nox)\n");
  }
}

}  // namespace flux::frontend

// Sweeps under MPI (include/flux/sweep/mpi.hpp). The protocol, one tag each
// way: a worker sends rank 0 a message (empty when it starts, else the
// outcome of its last point: "<index>\n<wall s>\n" + encode()), and rank 0
// answers with the index of its next point, or -1: leave. Rank 0 never runs
// points itself. Dynamic hand-out, largest first, keeps the ranks busy when
// points differ in size by orders of magnitude.
#include "flux/sweep/mpi.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>

#include "flux/core/error.hpp"

#ifdef FLUX_HAVE_MPI
#include <mpi.h>
#endif

namespace flux::sweep {
namespace {

// The environment of a process started by mpirun (Open MPI) or srun
// (PMI/PMIx) with more than one rank.
bool launched_with_ranks() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}) {
    const char* v = std::getenv(var);
    if (v != nullptr && std::atoi(v) > 1) return true;
  }
  const char* tasks = std::getenv("SLURM_NTASKS");
  return std::getenv("PMIX_RANK") != nullptr && tasks != nullptr && std::atoi(tasks) > 1;
}

#ifdef FLUX_HAVE_MPI
constexpr int kTagResult = 1;
constexpr int kTagWork = 2;

void send_index(int to, long long index) {
  MPI_Send(&index, 1, MPI_LONG_LONG, to, kTagWork, MPI_COMM_WORLD);
}

// The next worker message: its rank and text.
std::pair<int, std::string> receive_result() {
  MPI_Status st;
  MPI_Probe(MPI_ANY_SOURCE, kTagResult, MPI_COMM_WORLD, &st);
  int n = 0;
  MPI_Get_count(&st, MPI_CHAR, &n);
  std::string text(static_cast<std::size_t>(n), '\0');
  MPI_Recv(text.data(), n, MPI_CHAR, st.MPI_SOURCE, kTagResult, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return {st.MPI_SOURCE, text};
}

void broadcast(std::string& text) {
  unsigned long long n = text.size();
  MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  text.resize(n);
  MPI_Bcast(text.data(), static_cast<int>(n), MPI_CHAR, 0, MPI_COMM_WORLD);
}
#else
[[noreturn]] void no_mpi() {
  throw core::Error("this flux was built without MPI");
}
#endif

}  // namespace

bool MpiSession::available() {
#ifdef FLUX_HAVE_MPI
  return true;
#else
  return false;
#endif
}

std::unique_ptr<MpiSession> MpiSession::start_if_launched() {
#ifdef FLUX_HAVE_MPI
  if (!launched_with_ranks()) return nullptr;
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SINGLE, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return std::unique_ptr<MpiSession>(new MpiSession(rank, size));
#else
  if (launched_with_ranks()) {
    throw core::InputError("", "mpirun", "",
                           "this flux was built without MPI (install libopenmpi-dev and "
                           "rebuild): run it without mpirun, with -j");
  }
  return nullptr;
#endif
}

MpiSession::~MpiSession() {
#ifdef FLUX_HAVE_MPI
  MPI_Finalize();
#endif
}

void MpiSession::abort_on_error() {
#ifdef FLUX_HAVE_MPI
  if (rank_ != 0 || !workers_waiting_) return;
  if (handing_out_) MPI_Abort(MPI_COMM_WORLD, 2);
  workers_waiting_ = false;
  mpi_stop_workers(*this);
#endif
}

std::optional<SweepSpec> mpi_share_spec(MpiSession& mpi, const std::string& file) {
#ifdef FLUX_HAVE_MPI
  // "+", the directory relative routing files are in (rank 0's, absolute:
  // a worker may run elsewhere), a NUL (no path holds one) and the text; or "" when rank 0
  // cannot read the file (SweepSpec::read_text: a directory, over the size
  // limit, ...).
  std::string text;
  std::optional<core::InputError> unreadable;
  if (mpi.rank() == 0) {
    try {
      const std::string spec = SweepSpec::read_text(file);
      text.push_back('+');  // appended: GCC 12 reports a false -Wrestrict on "+" + string
      text += SweepSpec::base_of(file).string();
      text.push_back('\0');
      text += spec;
    } catch (const core::InputError& e) {
      unreadable = e;
    }
  }
  broadcast(text);
  if (text.empty()) {
    if (unreadable) throw *unreadable;
    return std::nullopt;
  }
  try {
    const std::size_t end = text.find('\0');
    return SweepSpec::parse(std::string_view(text).substr(end + 1), file, file.ends_with(".json"),
                            text.substr(1, end - 1));
  } catch (const core::InputError&) {
    if (mpi.rank() == 0) throw;
    return std::nullopt;  // rank 0 reports it
  }
#else
  (void)mpi;
  (void)file;
  no_mpi();
#endif
}

void mpi_coordinate(
    MpiSession& mpi, const std::vector<Point>& points, const std::vector<std::size_t>& todo,
    const RunOptions& options,
    const std::function<void(std::size_t, const Outcome&, const RunProgress&)>& on_done) {
#ifdef FLUX_HAVE_MPI
  mpi.handing_out_ = true;
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<std::size_t> order = largest_first(points, todo);
  std::size_t next = 0;
  int active = mpi.size() - 1;
  std::size_t running = 0;
  RunProgress progress;
  progress.total = todo.size();
  while (active > 0) {
    auto [from, text] = receive_result();
    if (!text.empty()) {
      std::istringstream in(text);
      std::size_t index = 0;
      double wall = 0;
      in >> index >> wall;
      in.ignore(1);
      Outcome o = decode(text.substr(static_cast<std::size_t>(in.tellg())));
      o.wall_s = wall;
      --running;
      ++progress.done;
      if (o.status != PointStatus::kOk) ++progress.failed;
      progress.running = running;
      progress.elapsed_s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      on_done(index, o, progress);
    }
    // Points refused up front (invalid, over the budget) need no worker.
    while (next < order.size()) {
      std::optional<Outcome> refused = refuse(points[order[next]], options.memory_budget_bytes);
      if (!refused) break;
      ++progress.done;
      ++progress.failed;
      on_done(order[next++], *refused, progress);
    }
    if (next < order.size()) {
      send_index(from, static_cast<long long>(order[next++]));
      ++running;
    } else {
      send_index(from, -1);
      --active;
    }
  }
  mpi.handing_out_ = false;
#else
  (void)mpi, (void)points, (void)todo, (void)options, (void)on_done;
  no_mpi();
#endif
}

void mpi_stop_workers(MpiSession& mpi) {
#ifdef FLUX_HAVE_MPI
  for (int k = 1; k < mpi.size(); ++k) {
    const int from = receive_result().first;
    send_index(from, -1);
  }
#else
  (void)mpi;
  no_mpi();
#endif
}

void mpi_work(MpiSession& mpi, const std::vector<Point>& points, const RunOptions& options) {
#ifdef FLUX_HAVE_MPI
  (void)mpi;
  std::string message;  // empty: ready for the first point
  RunOptions one = options;
  one.jobs = 1;
  while (true) {
    MPI_Send(message.data(), static_cast<int>(message.size()), MPI_CHAR, 0, kTagResult,
             MPI_COMM_WORLD);
    long long index = -1;
    MPI_Recv(&index, 1, MPI_LONG_LONG, 0, kTagWork, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (index < 0 || static_cast<std::size_t>(index) >= points.size()) return;
    run_points(points, {static_cast<std::size_t>(index)}, one,
               [&](std::size_t i, const Outcome& o, const RunProgress&) {
                 std::ostringstream m;
                 m.precision(17);
                 m << i << "\n" << o.wall_s << "\n" << encode(o);
                 message = m.str();
               });
  }
#else
  (void)mpi, (void)points, (void)options;
  no_mpi();
#endif
}

}  // namespace flux::sweep

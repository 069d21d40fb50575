#pragma once
// A sweep across machines through MPI (Open MPI; a flux built without MPI
// has the same functions and never starts a session). Under mpirun or srun
// with n > 1 ranks: rank 0 reads the sweep file and broadcasts its text (the
// workers need no shared file system), resumes from its CSV and hands out
// points one at a time, largest first, to whichever worker asks; each
// worker runs its point in a child process (as -j 1 does), so a point that
// crashes loses only itself; rank 0 alone appends rows and writes files.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flux/sweep/runner.hpp"
#include "flux/sweep/spec.hpp"

namespace flux::sweep {

class MpiSession {
 public:
  /// Initialises MPI when this process was started by mpirun or srun with
  /// more than one rank and flux was built with MPI; nullptr otherwise (a
  /// plain run, or one rank).
  static std::unique_ptr<MpiSession> start_if_launched();
  /// True when flux was built with MPI.
  static bool available();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }
  /// After an error on rank 0: stops the workers (still waiting for their
  /// first point: they leave quietly), or, once points are out, aborts the
  /// job (MPI_Abort); the CSV holds every row reported so far.
  void abort_on_error();
  /// Every rank has the points (they agree: the same text, the same code):
  /// from now on the workers wait for rank 0's word.
  void workers_waiting() { workers_waiting_ = true; }

 private:
  MpiSession(int rank, int size) : rank_(rank), size_(size) {}
  friend void mpi_coordinate(
      MpiSession&, const std::vector<Point>&, const std::vector<std::size_t>&, const RunOptions&,
      const std::function<void(std::size_t, const Outcome&, const RunProgress&)>&);
  int rank_ = 0;
  int size_ = 1;
  bool workers_waiting_ = false;
  bool handing_out_ = false;
};

/// The sweep file on every rank: rank 0 reads `file` and broadcasts its
/// text, the workers parse it. On rank 0 an error is thrown after the
/// workers are told; on a worker, nullopt means rank 0 failed (leave).
std::optional<SweepSpec> mpi_share_spec(MpiSession& mpi, const std::string& file);

/// Rank 0: hands out `todo` (largest first) and calls `on_done` for each
/// result as it arrives.
void mpi_coordinate(
    MpiSession& mpi, const std::vector<Point>& points, const std::vector<std::size_t>& todo,
    const RunOptions& options,
    const std::function<void(std::size_t, const Outcome&, const RunProgress&)>& on_done);
/// Rank 0 with nothing to hand out: tells every worker to leave.
void mpi_stop_workers(MpiSession& mpi);
/// Ranks > 0: runs the points rank 0 sends until it says stop.
void mpi_work(MpiSession& mpi, const std::vector<Point>& points, const RunOptions& options);

}  // namespace flux::sweep

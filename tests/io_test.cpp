// flux::io's outputs: what a path means (resolve_output), saving by its kind,
// collisions, output directories and their lock, temporaries removed.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "flux/core/error.hpp"
#include "flux/io/output.hpp"
#include "flux/io/save.hpp"

namespace flux::io {
namespace {

namespace fs = std::filesystem;

class IoOutput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("flux_io_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static void write(const fs::path& p, const std::string& text) {
    std::ofstream(p, std::ios::binary) << text;
  }
  // Files whose name holds ".tmp-" in the test's directory.
  [[nodiscard]] int temporaries() const {
    int n = 0;
    for (const auto& e : fs::directory_iterator(dir_)) {
      n += e.path().filename().string().find(".tmp-") != std::string::npos;
    }
    return n;
  }
  // The problem of the core::InputError `f` throws ("" if none).
  template <class F>
  static std::string error_of(F&& f) {
    try {
      f();
    } catch (const core::InputError& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

TEST_F(IoOutput, EmptyAndStdout) {
  EXPECT_EQ(error_of([] { (void)resolve_output("", true); }),
            "output = '': an empty path names no file");
  EXPECT_EQ(resolve_output("-", true).kind, OutputKind::kStdout);
  EXPECT_EQ(error_of([] { (void)resolve_output("-", false); }),
            "-: standard output cannot take this output: name a file");
}

TEST_F(IoOutput, KindsOfTarget) {
  const OutputTarget fresh = resolve_output(dir_ / "new.json", false);
  EXPECT_EQ(fresh.kind, OutputKind::kFile);
  EXPECT_FALSE(fresh.exists);
  write(dir_ / "old.json", "x");
  const OutputTarget old = resolve_output(dir_ / "old.json", false);
  EXPECT_EQ(old.kind, OutputKind::kFile);
  EXPECT_TRUE(old.exists);
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0644), 0);
  EXPECT_EQ(resolve_output(dir_ / "fifo", false).kind, OutputKind::kDevice);
  EXPECT_NE(error_of([&] { (void)resolve_output(dir_, false); }).find("is a directory"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              (void)resolve_output(dir_ / "none" / "x.json", false);
            }).find("cannot write: No such file or directory (in "),
            std::string::npos);
  const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string sock = (dir_ / "sock").string();
  ASSERT_LT(sock.size(), sizeof addr.sun_path);
  std::memcpy(addr.sun_path, sock.c_str(), sock.size() + 1);
  ASSERT_EQ(::bind(s, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0);
  EXPECT_NE(error_of([&] { (void)resolve_output(sock, false); }).find("is a socket"),
            std::string::npos);
  ::close(s);
}

TEST_F(IoOutput, SymlinksFollowed) {
  write(dir_ / "target.json", "old");
  fs::create_symlink("target.json", dir_ / "a");
  fs::create_symlink(dir_ / "a", dir_ / "b");  // a chain, absolute then relative
  EXPECT_EQ(resolve_output(dir_ / "b", false).path, dir_ / "target.json");
  fs::create_symlink("missing.json", dir_ / "dangling");
  const OutputTarget d = resolve_output(dir_ / "dangling", false);
  EXPECT_EQ(d.path, dir_ / "missing.json");
  EXPECT_FALSE(d.exists);
  fs::create_symlink("loop2", dir_ / "loop1");
  fs::create_symlink("loop1", dir_ / "loop2");
  EXPECT_NE(error_of([&] {
              (void)resolve_output(dir_ / "loop1", false);
            }).find("Too many levels of symbolic links"),
            std::string::npos);

  save_file(dir_ / "b", [](std::ostream& o) { o << "new"; });
  EXPECT_TRUE(fs::is_symlink(dir_ / "b"));
  EXPECT_TRUE(fs::is_symlink(dir_ / "a"));
  EXPECT_EQ(read(dir_ / "target.json"), "new");
  save_file(dir_ / "dangling", [](std::ostream& o) { o << "made"; });
  EXPECT_TRUE(fs::is_symlink(dir_ / "dangling"));
  EXPECT_EQ(read(dir_ / "missing.json"), "made");
  EXPECT_EQ(temporaries(), 0);
}

TEST_F(IoOutput, ReplacingKeepsMode) {
  const fs::path f = dir_ / "secret.json";
  write(f, "old");
  ::chmod(f.c_str(), 0600);
  save_file(f, [](std::ostream& o) { o << "new"; });
  EXPECT_EQ(read(f), "new");
  struct stat st {};
  ASSERT_EQ(::stat(f.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

TEST_F(IoOutput, ReplacingKeepsOwnerAsRoot) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root can give a file away";
  const fs::path f = dir_ / "theirs.json";
  write(f, "old");
  ASSERT_EQ(::chown(f.c_str(), 1234, 5678), 0);
  save_file(f, [](std::ostream& o) { o << "new"; });
  struct stat st {};
  ASSERT_EQ(::stat(f.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 1234u);
  EXPECT_EQ(st.st_gid, 5678u);
}

TEST_F(IoOutput, ErrorLeavesTargetAndNoTemporary) {
  const fs::path f = dir_ / "keep.json";
  write(f, "keep");
  EXPECT_THROW(save_file(f,
                         [](std::ostream& o) {
                           o << "half";
                           throw std::runtime_error("writer failed");
                         }),
               std::runtime_error);
  EXPECT_EQ(read(f), "keep");
  EXPECT_EQ(temporaries(), 0);
}

TEST_F(IoOutput, FifoWrittenDirectly) {
  const fs::path fifo = dir_ / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  std::string got;
  std::thread reader([&] { got = read(fifo); });
  save_file(fifo, [](std::ostream& o) { o << "through"; });
  reader.join();
  EXPECT_EQ(got, "through");
  EXPECT_TRUE(fs::is_fifo(fifo));
}

TEST_F(IoOutput, DeviceWriteErrorReported) {
  // A full device made here (never the real /dev/full): root only.
  const fs::path full = dir_ / "full";
  if (::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0) {
    GTEST_SKIP() << "mknod not permitted";
  }
  EXPECT_EQ(error_of([&] { save_file(full, [](std::ostream& o) { o << "x"; }); }),
            full.string() + ": cannot write: No space left on device");
  EXPECT_TRUE(fs::is_character_file(full));
}

TEST_F(IoOutput, Collisions) {
  const fs::path in = dir_ / "w.json";
  write(in, "{}");
  fs::create_hard_link(in, dir_ / "hard.json");
  const std::vector<InputSpec> inputs = {{in, "the input workload"}, {dir_ / "absent", "x"}};
  EXPECT_EQ(error_of([&] {
              check_outputs({{in, "the schedule", "-o", false}}, inputs);
            }),
            in.string() + ": -o: is also the input workload");
  EXPECT_NE(error_of([&] {
              check_outputs({{dir_ / "hard.json", "the schedule", "-o", false}}, inputs);
            }).find("is also the input workload"),
            std::string::npos);
  // Not there yet: the same path, however spelled.
  const fs::path a = dir_ / "m.json";
  const fs::path b = dir_ / "." / "sub" / ".." / "m.json";
  fs::create_directory(dir_ / "sub");
  EXPECT_EQ(error_of([&] {
              check_outputs({{a, "the metrics output (-o)", "-o", false},
                             {b, "the trace output", "--trace", false}},
                            inputs);
            }),
            b.string() + ": --trace: is also the metrics output (-o)");
  EXPECT_EQ(error_of([&] {
              check_outputs({{"-", "the metrics", "-o", true}, {"-", "the trace", "--trace", true}},
                            inputs);
            }),
            "-: --trace: is also the metrics");
  EXPECT_EQ(error_of([&] {
              check_outputs({{"", "the metrics", "-o", true}}, inputs);
            }),
            "-o = '': an empty path names no file");
  // Distinct files, and a FIFO twice (a device replaces nothing): fine.
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0644), 0);
  // Files there already: the same inode, however reached (a hard link),
  // naming the earlier output, whatever devices came before it.
  EXPECT_EQ(error_of([&] {
              check_outputs({{dir_ / "fifo", "zero", "--z", false},
                             {in, "one", "-o", false},
                             {dir_ / "hard.json", "two", "--trace", false}},
                            {});
            }),
            (dir_ / "hard.json").string() + ": --trace: is also one");
  // Many outputs (a trace of 8,192 ranks is 8,193): a collision among them.
  std::vector<OutputSpec> many;
  for (int k = 0; k < 2000; ++k) {
    many.push_back({dir_ / ("r." + std::to_string(k) + ".et"), "a trace file", "-o", false});
  }
  EXPECT_NO_THROW(check_outputs(many, inputs));
  many.push_back({dir_ / "sub" / ".." / "r.7.et", "the last", "-o", false});
  EXPECT_EQ(error_of([&] { check_outputs(many, inputs); }),
            (dir_ / "sub" / ".." / "r.7.et").string() + ": -o: is also a trace file");
  EXPECT_NO_THROW(check_outputs({{a, "one", "-o", false},
                                 {dir_ / "t.json", "two", "--trace", false},
                                 {dir_ / "fifo", "three", "--x", false},
                                 {dir_ / "fifo", "four", "--y", false}},
                                inputs));
}

TEST_F(IoOutput, OutputDirectory) {
  write(dir_ / "file", "x");
  EXPECT_EQ(error_of([&] { prepare_output_directory(dir_ / "file", "-o"); }),
            (dir_ / "file").string() + ": not a directory");
  EXPECT_NE(error_of([&] {
              prepare_output_directory(dir_ / "file" / "sub", "-o");
            }).find("cannot create the directory"),
            std::string::npos);
  EXPECT_EQ(error_of([&] { prepare_output_directory("-", "-o"); }),
            "-o = -: standard output cannot take a directory of results");
  EXPECT_EQ(error_of([&] { prepare_output_directory("", "-o"); }),
            "-o = '': an empty path names no directory");
  prepare_output_directory(dir_ / "a" / "b", "-o");
  EXPECT_TRUE(fs::is_directory(dir_ / "a" / "b"));
  EXPECT_TRUE(fs::is_empty(dir_ / "a" / "b"));  // the probe removed
}

TEST_F(IoOutput, DirectoryLockIsExclusive) {
  {
    const DirectoryLock first(dir_, ".lock", "flux evaluate");
    EXPECT_EQ(read(dir_ / ".lock"), std::to_string(::getpid()) + "\n");
    EXPECT_EQ(error_of([&] { const DirectoryLock second(dir_, ".lock", "flux evaluate"); }),
              dir_.string() + ": another flux evaluate is writing here (pid " +
                  std::to_string(::getpid()) + ")");
  }
  EXPECT_NO_THROW(DirectoryLock(dir_, ".lock", "flux evaluate"));  // released
}

TEST_F(IoOutput, RemoveTemporaries) {
  // What a signal handler does: the temporaries being written vanish, the
  // targets stay as they were.
  write(dir_ / "a.json", "keep");
  OutputFile a(resolve_output(dir_ / "a.json", false));
  OutputFile b(resolve_output(dir_ / "b.json", false));
  a.stream() << "partial";
  EXPECT_EQ(temporaries(), 2);
  remove_temporaries();
  EXPECT_EQ(temporaries(), 0);
  EXPECT_EQ(read(dir_ / "a.json"), "keep");
  EXPECT_FALSE(fs::exists(dir_ / "b.json"));
}

}  // namespace
}  // namespace flux::io

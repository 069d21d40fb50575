#pragma once
// gzip as streams, a chunk at a time: nothing is ever inflated or deflated
// whole in memory. Readers recognise gzip by its magic bytes (1f 8b), not
// by a file name; concatenated gzip members read as one stream (what
// `cat a.gz b.gz` and pigz produce).
#include <cstddef>
#include <istream>
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

namespace flux::io {

/// True when the next two bytes of `in` are the gzip magic 1f 8b. Consumes
/// nothing (the bytes stay in the buffer).
bool starts_with_gzip(std::streambuf& in);

/// A read-only streambuf that inflates the gzip data read from `compressed`
/// (which must outlive it). Errors throw core::InputError with `source` as
/// its source: corrupt data, a stream that ends inside a member ("truncated
/// gzip stream"), bytes after the last member that are no gzip member.
/// They propagate through the streambuf interface (sgetc, sbumpc, sgetn);
/// read through it directly, not through an istream that would swallow them.
class GzipInBuf final : public std::streambuf {
 public:
  GzipInBuf(std::streambuf& compressed, std::string source);
  ~GzipInBuf() override;
  GzipInBuf(const GzipInBuf&) = delete;
  GzipInBuf& operator=(const GzipInBuf&) = delete;

  /// Bytes inflated so far (the offset of the end of the buffered output).
  [[nodiscard]] std::uint64_t inflated() const { return inflated_; }

 protected:
  int_type underflow() override;

 private:
  struct State;
  std::unique_ptr<State> z_;
  std::streambuf& in_;
  std::string source_;
  std::string inbuf_, outbuf_;
  std::uint64_t consumed_ = 0;  // compressed bytes fed to zlib
  std::uint64_t inflated_ = 0;
  bool done_ = false;
};

/// A write-only streambuf that deflates into `out` (which must outlive it).
/// finish() writes the gzip trailer; without it the output is a truncated
/// gzip stream. Errors (zlib failures, a failing `out`) throw core::Error.
class GzipOutBuf final : public std::streambuf {
 public:
  explicit GzipOutBuf(std::streambuf& out, int level = 6);
  ~GzipOutBuf() override;
  GzipOutBuf(const GzipOutBuf&) = delete;
  GzipOutBuf& operator=(const GzipOutBuf&) = delete;
  void finish();

 protected:
  int_type overflow(int_type ch) override;
  int sync() override;

 private:
  void deflate_buffer(int flush);
  struct State;
  std::unique_ptr<State> z_;
  std::streambuf& out_;
  std::string inbuf_, outbuf_;
  bool finished_ = false;
};

/// An ostream writing gzip to `dest`, for writers that take a std::ostream:
///   io::GzipOStream gz(file); write_workload(gz, w); gz.finish();
/// finish() flushes and writes the trailer; errors throw core::Error.
class GzipOStream final : public std::ostream {
 public:
  explicit GzipOStream(std::ostream& dest, int level = 6);
  void finish();

 private:
  GzipOutBuf buf_;
};

/// The gzip-compressed form of `bytes` (one member).
std::string gzip_bytes(std::string_view bytes, int level = 6);

}  // namespace flux::io

// gzip streams on zlib (the gzip wrapper: windowBits 16 + MAX_WBITS), one
// chunk at a time, so memory stays bounded whatever the data inflates to.
#include "flux/io/gzip.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <sstream>

#include "flux/core/error.hpp"

namespace flux::io {
namespace {

constexpr std::size_t kChunk = 1 << 16;

unsigned char* bytes_of(std::string& s) {
  return reinterpret_cast<unsigned char*>(s.data());
}

}  // namespace

struct GzipInBuf::State {
  z_stream zs{};
};

struct GzipOutBuf::State {
  z_stream zs{};
};

bool starts_with_gzip(std::streambuf& in) {
  const auto first = in.sbumpc();
  if (first == std::streambuf::traits_type::eof()) return false;
  const auto second = in.sgetc();
  if (in.sungetc() == std::streambuf::traits_type::eof()) {
    throw core::Error("cannot look at the first bytes of the input twice");
  }
  return first == 0x1f && second == 0x8b;
}

// --- reading ----------------------------------------------------------------

GzipInBuf::GzipInBuf(std::streambuf& compressed, std::string source)
    : z_(std::make_unique<State>()),
      in_(compressed),
      source_(std::move(source)),
      inbuf_(kChunk, '\0'),
      outbuf_(kChunk, '\0') {
  if (inflateInit2(&z_->zs, 16 + MAX_WBITS) != Z_OK) {
    throw core::InputError(source_, "", "", "cannot initialise zlib");
  }
  setg(outbuf_.data(), outbuf_.data(), outbuf_.data());
}

GzipInBuf::~GzipInBuf() {
  inflateEnd(&z_->zs);
}

GzipInBuf::int_type GzipInBuf::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  z_stream& zs = z_->zs;
  while (!done_) {
    if (zs.avail_in == 0) {
      const std::streamsize got = in_.sgetn(inbuf_.data(), static_cast<std::streamsize>(kChunk));
      zs.next_in = bytes_of(inbuf_);
      zs.avail_in = static_cast<uInt>(std::max<std::streamsize>(got, 0));
      if (zs.avail_in == 0) throw core::InputError(source_, "", "", "truncated gzip stream");
      consumed_ += zs.avail_in;
    }
    zs.next_out = bytes_of(outbuf_);
    zs.avail_out = static_cast<uInt>(outbuf_.size());
    const int rc = inflate(&zs, Z_NO_FLUSH);
    const std::size_t produced = outbuf_.size() - zs.avail_out;
    if (rc == Z_STREAM_END) {
      // Another member may follow; anything else after the end is an error.
      const std::uint64_t end = consumed_ - zs.avail_in;
      if (zs.avail_in == 0) {
        zs.avail_in = static_cast<uInt>(std::max<std::streamsize>(
            in_.sgetn(inbuf_.data(), static_cast<std::streamsize>(kChunk)), 0));
        zs.next_in = bytes_of(inbuf_);
        consumed_ += zs.avail_in;
      }
      if (zs.avail_in == 0) {
        done_ = true;
      } else if (zs.avail_in < 2 || zs.next_in[0] != 0x1f || zs.next_in[1] != 0x8b) {
        throw core::InputError(source_, "byte " + std::to_string(end), "",
                               "data after the end of the gzip stream");
      } else {
        inflateReset(&zs);
      }
    } else if (rc != Z_OK && !(rc == Z_BUF_ERROR && zs.avail_in == 0)) {
      throw core::InputError(source_, "", "",
                             std::string("corrupt gzip data: ") +
                                 (zs.msg != nullptr ? zs.msg : "error " + std::to_string(rc)));
    }
    if (produced > 0) {
      inflated_ += produced;
      setg(outbuf_.data(), outbuf_.data(), outbuf_.data() + produced);
      return traits_type::to_int_type(*gptr());
    }
  }
  return traits_type::eof();
}

// --- writing ----------------------------------------------------------------

GzipOutBuf::GzipOutBuf(std::streambuf& out, int level)
    : z_(std::make_unique<State>()), out_(out), inbuf_(kChunk, '\0'), outbuf_(kChunk, '\0') {
  if (deflateInit2(&z_->zs, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw core::Error("cannot initialise zlib");
  }
  setp(inbuf_.data(), inbuf_.data() + inbuf_.size());
}

GzipOutBuf::~GzipOutBuf() {
  deflateEnd(&z_->zs);
}

void GzipOutBuf::deflate_buffer(int flush) {
  z_stream& zs = z_->zs;
  zs.next_in = bytes_of(inbuf_);
  zs.avail_in = static_cast<uInt>(pptr() - pbase());
  int rc = Z_OK;
  do {
    zs.next_out = bytes_of(outbuf_);
    zs.avail_out = static_cast<uInt>(outbuf_.size());
    rc = deflate(&zs, flush);
    if (rc == Z_STREAM_ERROR) throw core::Error("zlib: deflate failed");
    const auto produced = static_cast<std::streamsize>(outbuf_.size() - zs.avail_out);
    if (out_.sputn(outbuf_.data(), produced) != produced) throw core::Error("write error");
  } while (zs.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
  setp(inbuf_.data(), inbuf_.data() + inbuf_.size());
}

GzipOutBuf::int_type GzipOutBuf::overflow(int_type ch) {
  if (finished_) throw core::Error("gzip stream written after finish()");
  deflate_buffer(Z_NO_FLUSH);
  if (!traits_type::eq_int_type(ch, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(ch);
    pbump(1);
  }
  return traits_type::not_eof(ch);
}

int GzipOutBuf::sync() {
  // A flush of the ostream: keep the data buffered (a Z_SYNC_FLUSH would
  // cost ratio); finish() writes everything.
  return 0;
}

void GzipOutBuf::finish() {
  if (finished_) return;
  deflate_buffer(Z_FINISH);
  finished_ = true;
  if (out_.pubsync() != 0) throw core::Error("write error");
}

GzipOStream::GzipOStream(std::ostream& dest, int level)
    : std::ostream(nullptr), buf_(*dest.rdbuf(), level) {
  rdbuf(&buf_);
  exceptions(std::ios::badbit);
}

void GzipOStream::finish() {
  flush();
  buf_.finish();
}

std::string gzip_bytes(std::string_view bytes, int level) {
  std::stringbuf out;
  GzipOutBuf gz(out, level);
  if (gz.sputn(bytes.data(), static_cast<std::streamsize>(bytes.size())) !=
      static_cast<std::streamsize>(bytes.size())) {
    throw core::Error("gzip: short write");
  }
  gz.finish();
  return std::move(out).str();
}

}  // namespace flux::io

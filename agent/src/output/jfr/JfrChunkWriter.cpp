#include "output/jfr/JfrChunkWriter.h"

#include <errno.h>
#include <string.h>
#include <sys/uio.h>

namespace candor::jfr {

void writeChunkHeader(Buffer& out, const ChunkHeader& h) {
  out.putBytes("FLR\0", 4);
  out.putBE16(2);  // major
  out.putBE16(0);  // minor
  out.putBE64(h.chunkSize);
  out.putBE64(h.checkpointOffset);
  out.putBE64(h.metadataOffset);
  out.putBE64(h.startNanos);
  out.putBE64(h.durationNanos);
  out.putBE64(h.startTicks);
  out.putBE64(h.ticksPerSecond);
  out.put8(0);  // file state: finished
  out.put8(0);
  out.put8(0);
  out.put8(kFlagCompressedInts | (h.finalChunk ? kFlagFinalChunk : 0));
}

uint64_t writeChunk(int fd, ChunkHeader header, const Buffer& metadata, const Buffer& events,
                    const Buffer& checkpoint, std::string* why) {
  header.metadataOffset = kChunkHeaderSize;
  header.checkpointOffset = kChunkHeaderSize + metadata.size() + events.size();
  header.chunkSize = header.checkpointOffset + checkpoint.size();
  Buffer head;
  writeChunkHeader(head, header);

  iovec iov[4] = {{const_cast<uint8_t*>(head.data()), head.size()},
                  {const_cast<uint8_t*>(metadata.data()), metadata.size()},
                  {const_cast<uint8_t*>(events.data()), events.size()},
                  {const_cast<uint8_t*>(checkpoint.data()), checkpoint.size()}};
  iovec* v = iov;
  int count = 4;
  while (count > 0) {
    ssize_t n = writev(fd, v, count);
    if (n < 0) {
      if (errno == EINTR) continue;
      *why = strerror(errno);
      return 0;
    }
    size_t done = static_cast<size_t>(n);
    while (count > 0 && done >= v->iov_len) {
      done -= v->iov_len;
      v++;
      count--;
    }
    if (count > 0) {
      v->iov_base = static_cast<char*>(v->iov_base) + done;
      v->iov_len -= done;
    }
  }
  return header.chunkSize;
}

}  // namespace candor::jfr

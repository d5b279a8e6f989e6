// Writes one complete chunk at the end of a file:
//   [68-byte header][metadata event][events...][checkpoint event]
// Header (big-endian): magic "FLR\0", major 2, minor 0, chunk size, offset of the checkpoint,
// offset of the metadata (both from the chunk start), start time (epoch ns), duration (ns),
// start ticks, ticks per second, then 4 bytes: file state (0: finished; a reader waits while it
// is 255), two reserved, and the feature flags (1: compressed integers, 2: final chunk).
// A chunk is assembled in memory and appended with one writev, so a reader of a file that is
// still growing sees whole chunks except, at worst, the very last one while it is being written.
#pragma once
#include <cstdint>
#include <string>

#include "output/jfr/JfrBuffer.h"

namespace candor::jfr {

constexpr size_t kChunkHeaderSize = 68;
constexpr uint8_t kFlagCompressedInts = 1;
constexpr uint8_t kFlagFinalChunk = 2;

struct ChunkHeader {
  uint64_t chunkSize = 0;
  uint64_t checkpointOffset = 0;
  uint64_t metadataOffset = 0;
  uint64_t startNanos = 0;  // since the epoch
  uint64_t durationNanos = 0;
  uint64_t startTicks = 0;
  uint64_t ticksPerSecond = 0;
  bool finalChunk = false;
};

void writeChunkHeader(Buffer& out, const ChunkHeader& h);

// Appends [header][metadata][events][checkpoint] to fd; fills in sizes and offsets.
// Returns the chunk size, or 0 with `why`.
uint64_t writeChunk(int fd, ChunkHeader header, const Buffer& metadata, const Buffer& events,
                    const Buffer& checkpoint, std::string* why);

}  // namespace candor::jfr

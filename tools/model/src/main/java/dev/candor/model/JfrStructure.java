package dev.candor.model;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The framing of a JFR file, walked without interpreting event content: chunk headers (magic
 * {@code FLR\0}, version, size, constant pool and metadata positions) and, inside each chunk, the
 * records (each starts with its size and type id: 0 metadata, 1 constant pool checkpoint, others
 * events). Finds the first place where the framing breaks, so that the intact part before it can
 * be handed to the JDK's parser and the damage named by its byte offset.
 */
final class JfrStructure {
    static final int HEADER_SIZE = 68;
    static final int FILE_STATE_POSITION = 64;
    static final int FLAG_BYTE_POSITION = 67;
    private static final byte[] MAGIC = {'F', 'L', 'R', 0};

    private JfrStructure() {
    }

    /** One record: absolute offset in the file, size in bytes, type id. */
    record Rec(long offset, long size, long type) {
        long end() {
            return offset + size;
        }
    }

    /** A chunk header and the records found in it (all of them when the chunk is intact). */
    static final class Chunk {
        final int number;            // 1-based, for messages
        final long start;            // absolute offset of the header
        final ByteBuffer header;     // the 68 header bytes, big-endian
        final long size;             // as declared by the header
        final long cpPos;
        final long mdPos;
        final long startNanos;
        final long durationNanos;
        final boolean compressed;
        final List<Rec> records = new ArrayList<>();

        Chunk(int number, long start, ByteBuffer header) {
            this.number = number;
            this.start = start;
            this.header = header;
            this.size = header.getLong(8);
            this.cpPos = header.getLong(16);
            this.mdPos = header.getLong(24);
            this.startNanos = header.getLong(32);
            this.durationNanos = header.getLong(40);
            this.compressed = (header.get(FLAG_BYTE_POSITION) & 1) != 0;
        }

        long end() {  // saturated: a damaged header may declare a size near 2^63
            long end = start + size;
            return end < start ? Long.MAX_VALUE : end;
        }

        /** The record starting at this absolute offset, or null. */
        Rec recordAt(long offset) {
            int i = Collections.binarySearch(records, new Rec(offset, 0, 0),
                    (a, b) -> Long.compare(a.offset(), b.offset()));
            return i >= 0 ? records.get(i) : null;
        }

        /** Event records (type id 2 and up), in file order. */
        List<Rec> eventRecords() {
            List<Rec> out = new ArrayList<>();
            for (Rec r : records) {
                if (r.type() > 1) {
                    out.add(r);
                }
            }
            return out;
        }

        String describe() {
            return "chunk " + number + " (bytes " + start + "-" + end() + ")";
        }
    }

    /**
     * The result of a walk: the chunks that are structurally intact, and, when the walk stopped at
     * damage, the damage and the chunk it is in (with the records before it), if any.
     */
    record Scan(long fileSize, List<Chunk> intact, Chunk damagedChunk, Damage damage) {
    }

    /** Whether the bytes start with the JFR magic. */
    static boolean hasMagic(ByteBuffer firstBytes) {
        if (firstBytes.remaining() < 4) {
            return false;
        }
        for (int i = 0; i < 4; i++) {
            if (firstBytes.get(firstBytes.position() + i) != MAGIC[i]) {
                return false;
            }
        }
        return true;
    }

    static Scan scan(FileChannel ch) throws IOException {
        long fileSize = ch.size();
        List<Chunk> intact = new ArrayList<>();
        long pos = 0;
        int number = 0;
        while (pos < fileSize) {
            number++;
            long avail = fileSize - pos;
            ByteBuffer header = read(ch, pos, (int) Math.min(HEADER_SIZE, avail));
            if (!hasMagic(header)) {
                String found = hex(header, 4);
                return new Scan(fileSize, intact, null, new Damage(pos, pos == 0
                        ? "not a JFR recording (it does not start with the magic bytes 'FLR\\0' but " + found + ")"
                        : "expected the header of chunk " + number + " (magic 'FLR\\0') after " + (number - 1)
                                + " intact chunk" + (number == 2 ? "" : "s") + ", found bytes " + found));
            }
            if (avail < HEADER_SIZE) {
                return new Scan(fileSize, intact, null, new Damage(fileSize,
                        "the file ends inside the header of chunk " + number + " (" + avail + " of " + HEADER_SIZE
                                + " bytes; cut short?)"));
            }
            int major = header.getShort(4);
            int minor = header.getShort(6);
            if (major != 1 && major != 2) {
                return new Scan(fileSize, intact, null, new Damage(pos + 4,
                        "chunk " + number + " has an unknown JFR version " + major + "." + minor));
            }
            Chunk c = new Chunk(number, pos, header);
            Damage d = walkRecords(ch, c, fileSize);
            if (d == null) {
                d = checkPositions(ch, c);
            }
            if (d != null) {
                return new Scan(fileSize, intact, c, d);
            }
            intact.add(c);
            pos = c.end();
        }
        return new Scan(fileSize, intact, null, null);
    }

    // Walks the records of a chunk; returns the damage, or null when they tile the chunk exactly.
    private static Damage walkRecords(FileChannel ch, Chunk c, long fileSize) throws IOException {
        if (c.size < HEADER_SIZE) {
            return new Damage(c.start + 8, "chunk " + c.number + " declares an impossible size of " + c.size
                    + " bytes");
        }
        long declaredEnd = c.end();
        long limit = Math.min(declaredEnd, fileSize);
        boolean cut = declaredEnd > fileSize;
        String cutMessage = "the file ends inside chunk " + c.number + ", which starts at byte " + c.start
                + " and should end at byte " + declaredEnd + " (the file has " + fileSize + " bytes; cut short?)";
        long p = c.start + HEADER_SIZE;
        Reader in = new Reader(ch, c.start + HEADER_SIZE, limit, c.compressed);
        while (p < limit) {
            long size;
            long type;
            in.seek(p);
            try {
                size = in.readInt();
                type = in.readLong();
            } catch (EOFException e) {
                return cut ? new Damage(fileSize, cutMessage)
                        : new Damage(p, "the record at byte " + p + " runs past the end of " + c.describe());
            }
            long headerLen = in.position() - p;
            if (size < headerLen) {
                return new Damage(p, "the record at byte " + p + " has an impossible size of " + size + " bytes");
            }
            if (size > declaredEnd - p) {  // not p + size: a damaged size near 2^63 would wrap
                return new Damage(p, "the record at byte " + p + " (" + size + " bytes, type " + type
                        + ") runs past the end of " + c.describe());
            }
            if (type < 0) {
                return new Damage(p, "the record at byte " + p + " has an impossible type id " + type);
            }
            if (size > fileSize - p) {
                return new Damage(fileSize, cutMessage);
            }
            c.records.add(new Rec(p, size, type));
            p += size;
        }
        return cut ? new Damage(fileSize, cutMessage) : null;
    }

    // The header's metadata and constant pool positions must point at records of those types,
    // and the constant pool checkpoints must form a chain back to the first one.
    private static Damage checkPositions(FileChannel ch, Chunk c) throws IOException {
        Rec md = c.recordAt(c.start + c.mdPos);
        if (md == null || md.type() != 0) {
            return new Damage(c.start + 24, "the header of " + c.describe() + " gives metadata position " + c.mdPos
                    + ", where there is no metadata record");
        }
        Rec cp = c.recordAt(c.start + c.cpPos);
        if (cp == null || cp.type() != 1) {
            return new Damage(c.start + 16, "the header of " + c.describe() + " gives constant pool position "
                    + c.cpPos + ", where there is no constant pool record");
        }
        String broken = checkpointChain(ch, c, cp);
        return broken == null ? null : new Damage(cp.offset(), broken);
    }

    /** Null when the checkpoint chain from {@code last} back to the first checkpoint is sound, else why not. */
    static String checkpointChain(FileChannel ch, Chunk c, Rec last) throws IOException {
        Rec cur = last;
        int steps = 0;
        while (true) {
            Reader in = new Reader(ch, cur.offset(), cur.end(), c.compressed);
            long delta;
            try {
                in.readInt();   // size
                in.readLong();  // type
                in.readLong();  // start time
                in.readLong();  // duration
                delta = in.readLong();
            } catch (EOFException e) {
                return "the constant pool record at byte " + cur.offset() + " is too short";
            }
            if (delta == 0) {
                return null;
            }
            Rec prev = delta < 0 ? c.recordAt(cur.offset() + delta) : null;
            if (prev == null || prev.type() != 1) {
                return "the constant pool record at byte " + cur.offset() + " links to byte " + (cur.offset() + delta)
                        + ", where there is no earlier constant pool record";
            }
            if (++steps > c.records.size()) {
                return "the constant pool records of " + c.describe() + " link in a loop";
            }
            cur = prev;
        }
    }

    /** The size and type of the record at this offset of the chunk, or null if they cannot be read there. */
    static Rec readRecord(FileChannel ch, Chunk c, long offset) throws IOException {
        if (offset < c.start + HEADER_SIZE || offset >= c.end()) {
            return null;
        }
        Reader in = new Reader(ch, offset, Math.min(c.end(), ch.size()), c.compressed);
        try {
            long size = in.readInt();
            long type = in.readLong();
            if (size < in.position() - offset || size > c.end() - offset || type < 0) {
                return null;
            }
            return new Rec(offset, size, type);
        } catch (EOFException e) {
            return null;
        }
    }

    /**
     * The constant pool checkpoints of a chunk, found from its header by their links (not by
     * walking the records, so they are found past damage in between), last first; null when the
     * header or a link is broken.
     */
    static List<Rec> checkpointsFromHeader(FileChannel ch, Chunk c) throws IOException {
        List<Rec> out = new ArrayList<>();
        long at = c.start + c.cpPos;
        for (int i = 0; i < 1_000_000; i++) {
            Rec r = readRecord(ch, c, at);
            if (r == null || r.type() != 1) {
                return null;
            }
            Reader in = new Reader(ch, at, r.end(), c.compressed);
            long delta;
            try {
                in.readInt();
                in.readLong();
                in.readLong();
                in.readLong();
                delta = in.readLong();
            } catch (EOFException e) {
                return null;
            }
            out.add(r);
            if (delta == 0) {
                return out;
            }
            if (delta > 0) {
                return null;
            }
            at += delta;
        }
        return null;
    }

    /** Bytes [from, from+n) of the file. */
    static ByteBuffer read(FileChannel ch, long from, int n) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(n).order(ByteOrder.BIG_ENDIAN);
        while (b.hasRemaining()) {
            int r = ch.read(b, from + b.position());
            if (r < 0) {
                break;
            }
        }
        b.flip();
        return b;
    }

    private static String hex(ByteBuffer b, int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < Math.min(n, b.remaining()); i++) {
            if (sb.length() > 0) {
                sb.append(' ');
            }
            sb.append(String.format("%02x", b.get(b.position() + i) & 0xff));
        }
        return sb.length() == 0 ? "nothing" : sb.toString();
    }

    /**
     * Reads JFR integers between two file offsets: LEB128-style variable-length numbers (7 bits a
     * byte, the ninth byte whole) when the chunk uses compressed integers, else big-endian.
     */
    static final class Reader {
        private final FileChannel ch;
        private final long limit;
        private final boolean compressed;
        private final ByteBuffer buf = ByteBuffer.allocate(8192);
        private long bufStart;
        private long pos;

        Reader(FileChannel ch, long pos, long limit, boolean compressed) {
            this.ch = ch;
            this.pos = pos;
            this.limit = limit;
            this.compressed = compressed;
            this.bufStart = Long.MIN_VALUE;
        }

        void seek(long p) {
            pos = p;
        }

        long position() {
            return pos;
        }

        private int next() throws IOException {
            if (pos < 0 || pos >= limit) {
                throw new EOFException();
            }
            if (bufStart == Long.MIN_VALUE || pos < bufStart || pos >= bufStart + buf.limit()) {
                buf.clear();
                int n = (int) Math.min(buf.capacity(), limit - pos);
                buf.limit(n);
                while (buf.hasRemaining()) {
                    if (ch.read(buf, pos + buf.position()) < 0) {
                        break;
                    }
                }
                buf.flip();
                bufStart = pos;
                if (buf.limit() == 0) {
                    throw new EOFException();
                }
            }
            int b = buf.get((int) (pos - bufStart)) & 0xff;
            pos++;
            return b;
        }

        long readLong() throws IOException {
            if (!compressed) {
                long v = 0;
                for (int i = 0; i < 8; i++) {
                    v = (v << 8) | next();
                }
                return v;
            }
            long v = 0;
            for (int i = 0; i < 8; i++) {
                int b = next();
                v |= (long) (b & 0x7f) << (7 * i);
                if (b < 0x80) {
                    return v;
                }
            }
            return v | (long) next() << 56;
        }

        long readInt() throws IOException {
            if (!compressed) {
                long v = 0;
                for (int i = 0; i < 4; i++) {
                    v = (v << 8) | next();
                }
                return (int) v;
            }
            return readLong();
        }
    }
}

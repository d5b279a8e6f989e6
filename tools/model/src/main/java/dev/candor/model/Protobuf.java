package dev.candor.model;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * A minimal protocol buffers encoder (wire format only): varints, length-delimited strings and
 * nested messages, packed repeated varints. Enough for profile.proto; fields equal to their
 * default are left out, as proto3 does.
 */
final class Protobuf {
    static final int VARINT = 0;
    static final int LEN = 2;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    /** An unsigned LEB128 varint; negative numbers take ten bytes (two's complement), as int64 does. */
    Protobuf varint(long v) {
        while ((v & ~0x7FL) != 0) {
            out.write((int) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
        return this;
    }

    Protobuf tag(int field, int wireType) {
        return varint(((long) field << 3) | wireType);
    }

    /** An int64/uint64/bool field; omitted when 0. */
    Protobuf int64(int field, long v) {
        if (v != 0) {
            tag(field, VARINT);
            varint(v);
        }
        return this;
    }

    /** A string field, always written (repeated string tables need empty strings too). */
    Protobuf string(int field, String s) {
        return bytes(field, s.getBytes(StandardCharsets.UTF_8));
    }

    Protobuf bytes(int field, byte[] b) {
        tag(field, LEN);
        varint(b.length);
        out.write(b, 0, b.length);
        return this;
    }

    /** A nested message. */
    Protobuf message(int field, Protobuf m) {
        return bytes(field, m.toByteArray());
    }

    /** A packed repeated varint field; omitted when empty. */
    Protobuf packed(int field, long[] values, int n) {
        if (n == 0) {
            return this;
        }
        Protobuf body = new Protobuf();
        for (int i = 0; i < n; i++) {
            body.varint(values[i]);
        }
        return bytes(field, body.toByteArray());
    }

    byte[] toByteArray() {
        return out.toByteArray();
    }

    int size() {
        return out.size();
    }
}

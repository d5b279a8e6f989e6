package dev.candor.bench;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A CPU-bound mix doing a FIXED amount of work: each round runs a tree-walking interpreter
 * (deep, megamorphic stacks), SHA-256 hashing, object and primitive sorting, hash-map word
 * counting and BigInteger arithmetic. The same rounds are done whatever the machine speed, so
 * CPU time with and without a profiler can be compared directly. Prints its own elapsed time and
 * a checksum (which also keeps the JIT from deleting the work).
 */
public final class CpuMix {
    private CpuMix() {}

    public static void main(String[] args) throws Exception {
        int rounds = Main.intOpt(args, "--rounds", 48);
        int threads = Main.intOpt(args, "--threads", 1);
        long t0 = System.nanoTime();
        AtomicLong sum = new AtomicLong();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            final int seed = t;
            Thread th = new Thread(() -> {
                try {
                    sum.addAndGet(run(rounds, seed));
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            }, "cpu-mix-" + t);
            workers.add(th);
            th.start();
        }
        for (Thread th : workers) {
            th.join();
        }
        long elapsed = System.nanoTime() - t0;
        System.out.printf("cpu: rounds=%d threads=%d elapsed_ms=%d checksum=%x%n",
                rounds, threads, elapsed / 1_000_000, sum.get());
    }

    static long run(int rounds, int seed) throws Exception {
        long acc = 0;
        for (int r = 0; r < rounds; r++) {
            SplittableRandom rnd = new SplittableRandom(1000L * seed + r);
            acc = acc * 31 + Interp.run(23 + (r & 1));
            acc = acc * 31 + hashing(rnd);
            acc = acc * 31 + sorting(rnd);
            acc = acc * 31 + wordCount(rnd);
            acc = acc * 31 + bigMath(r);
        }
        return acc;
    }

    // ---- hashing: SHA-256 over 4 KiB blocks plus a hand-written FNV-1a ----
    static long hashing(SplittableRandom rnd) throws Exception {
        byte[] block = new byte[4096];
        for (int i = 0; i < block.length; i++) {
            block[i] = (byte) rnd.nextInt();
        }
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        long h = 0;
        for (int i = 0; i < 600; i++) {
            sha.update(block);
            block[i & 4095] ^= (byte) i;
            if ((i & 63) == 63) {
                byte[] d = sha.digest();
                h ^= fnv1a(d, 0, d.length);
            }
        }
        for (int i = 0; i < 150; i++) {
            h += fnv1a(block, i, block.length - i);
        }
        return h;
    }

    static long fnv1a(byte[] b, int from, int to) {
        long h = 0xcbf29ce484222325L;
        for (int i = from; i < to; i++) {
            h ^= b[i] & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }

    // ---- sorting: records with a composite comparator, and primitives ----
    record Item(String name, int weight, double score) {}

    static final Comparator<Item> ORDER = Comparator.comparingInt(Item::weight)
            .thenComparing(Item::name)
            .thenComparingDouble(Item::score);

    static long sorting(SplittableRandom rnd) {
        Item[] items = new Item[40_000];
        for (int i = 0; i < items.length; i++) {
            items[i] = new Item("n" + rnd.nextInt(5000), rnd.nextInt(64), rnd.nextDouble());
        }
        Arrays.sort(items, ORDER);
        int[] ints = new int[300_000];
        for (int i = 0; i < ints.length; i++) {
            ints[i] = rnd.nextInt();
        }
        Arrays.sort(ints);
        return items[items.length / 2].weight() + ints[ints.length / 3] + items[7].name().hashCode();
    }

    // ---- hash maps: count generated words ----
    static final String[] SYLLABLES = {"ka", "lo", "mi", "nu", "pe", "ra", "si", "to", "vu", "ze", "qua", "xo"};

    static long wordCount(SplittableRandom rnd) {
        Map<String, Integer> counts = new HashMap<>();
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 120_000; i++) {
            sb.setLength(0);
            int n = 1 + rnd.nextInt(3);
            for (int k = 0; k < n; k++) {
                sb.append(SYLLABLES[rnd.nextInt(SYLLABLES.length)]);
            }
            counts.merge(sb.toString(), 1, Integer::sum);
        }
        long h = 0;
        for (Map.Entry<String, Integer> e : counts.entrySet()) {
            h += (long) e.getKey().hashCode() * e.getValue();
        }
        return h + new String(SYLLABLES[0].getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8).length();
    }

    // ---- BigInteger: a factorial, a modular exponentiation and a gcd chain ----
    static long bigMath(int r) {
        BigInteger f = BigInteger.ONE;
        for (int i = 2; i <= 1500 + (r & 7); i++) {
            f = f.multiply(BigInteger.valueOf(i));
        }
        BigInteger m = BigInteger.ONE.shiftLeft(1024).subtract(BigInteger.valueOf(105 + 2L * r));
        BigInteger p = BigInteger.valueOf(3 + r).modPow(f.shiftRight(9000).or(BigInteger.ONE), m);
        BigInteger g = BigInteger.ZERO;
        BigInteger a = f;
        for (int i = 0; i < 40; i++) {
            a = a.divide(BigInteger.valueOf(7 + i)).add(p);
            g = g.add(a.gcd(m));
        }
        return f.bitLength() ^ p.longValue() ^ g.longValue();
    }

    // ---- a tiny tree-walking interpreter running fib(n) and a loop ----
    static final class Interp {
        abstract static class Node {
            abstract long eval(long[] env);
        }

        static final class Const extends Node {
            final long v;
            Const(long v) { this.v = v; }
            long eval(long[] env) { return v; }
        }

        static final class Var extends Node {
            final int slot;
            Var(int slot) { this.slot = slot; }
            long eval(long[] env) { return env[slot]; }
        }

        static final class Add extends Node {
            final Node a, b;
            Add(Node a, Node b) { this.a = a; this.b = b; }
            long eval(long[] env) { return a.eval(env) + b.eval(env); }
        }

        static final class Sub extends Node {
            final Node a, b;
            Sub(Node a, Node b) { this.a = a; this.b = b; }
            long eval(long[] env) { return a.eval(env) - b.eval(env); }
        }

        static final class Mul extends Node {
            final Node a, b;
            Mul(Node a, Node b) { this.a = a; this.b = b; }
            long eval(long[] env) { return a.eval(env) * b.eval(env); }
        }

        static final class Lt extends Node {
            final Node a, b;
            Lt(Node a, Node b) { this.a = a; this.b = b; }
            long eval(long[] env) { return a.eval(env) < b.eval(env) ? 1 : 0; }
        }

        static final class If extends Node {
            final Node c, t, e;
            If(Node c, Node t, Node e) { this.c = c; this.t = t; this.e = e; }
            long eval(long[] env) { return c.eval(env) != 0 ? t.eval(env) : e.eval(env); }
        }

        static final class Set extends Node {
            final int slot;
            final Node v;
            Set(int slot, Node v) { this.slot = slot; this.v = v; }
            long eval(long[] env) { return env[slot] = v.eval(env); }
        }

        static final class Seq extends Node {
            final Node[] body;
            Seq(Node... body) { this.body = body; }
            long eval(long[] env) {
                long r = 0;
                for (Node n : body) {
                    r = n.eval(env);
                }
                return r;
            }
        }

        static final class While extends Node {
            final Node c, body;
            While(Node c, Node body) { this.c = c; this.body = body; }
            long eval(long[] env) {
                long r = 0;
                while (c.eval(env) != 0) {
                    r = body.eval(env);
                }
                return r;
            }
        }

        /** Calls a one-argument function: a fresh frame, argument in slot 0. */
        static final class Call extends Node {
            Node fn;
            final Node arg;
            Call(Node arg) { this.arg = arg; }
            long eval(long[] env) {
                long[] frame = new long[4];
                frame[0] = arg.eval(env);
                return fn.eval(frame);
            }
        }

        static long run(int n) {
            // fib(x) = x < 2 ? x : fib(x - 1) + fib(x - 2)
            Call c1 = new Call(new Sub(new Var(0), new Const(1)));
            Call c2 = new Call(new Sub(new Var(0), new Const(2)));
            Node fib = new If(new Lt(new Var(0), new Const(2)), new Var(0), new Add(c1, c2));
            c1.fn = fib;
            c2.fn = fib;
            // s = 0; i = 0; while (i < 200000) { s = s + i * i - s * 3; i = i + 1 }
            Node loop = new Seq(
                    new Set(1, new Const(0)),
                    new Set(2, new Const(0)),
                    new While(new Lt(new Var(2), new Const(200_000)),
                            new Seq(new Set(1, new Sub(new Add(new Var(1), new Mul(new Var(2), new Var(2))),
                                            new Mul(new Var(1), new Const(3)))),
                                    new Set(2, new Add(new Var(2), new Const(1))))),
                    new Var(1));
            long[] env = new long[4];
            env[0] = n;
            return fib.eval(env) + loop.eval(env);
        }
    }
}

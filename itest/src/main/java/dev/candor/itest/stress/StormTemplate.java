package dev.candor.itest.stress;

import java.util.function.IntUnaryOperator;

/**
 * The class the class-loading and deoptimization storms define again and again in fresh loaders
 * (and as hidden classes). Its methods are small enough to get compiled quickly.
 */
public final class StormTemplate implements IntUnaryOperator, Storm {
    @Override
    public int applyAsInt(int n) {
        int x = n;
        for (int i = 0; i < 200; i++) {
            x = (x ^ (x >>> 7)) * 31 + i;
        }
        return x;
    }

    @Override
    public int dispatch(Object o, int n) {
        if (o instanceof Integer i) {
            return i + n;
        }
        if (o instanceof String s) {
            return s.length() + n;
        }
        return o.hashCode() ^ n;
    }

    @Override
    public int branchy(int n, boolean rare) {
        int x = n;
        for (int i = 0; i < 50; i++) {
            x += i * n;
        }
        if (rare) {
            x = x * 17 + Integer.bitCount(x);
        }
        return x;
    }
}

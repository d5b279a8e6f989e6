package dev.candor.itest.stress;

/** What the deoptimization storm calls on each fresh copy of {@link StormTemplate}. */
public interface Storm {
    /** Speculation target: trained with Integers, then handed other types (uncommon traps). */
    int dispatch(Object o, int n);

    /** Unstable branch: never taken in training, then taken. */
    int branchy(int n, boolean rare);
}

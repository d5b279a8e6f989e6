package dev.candor.itest.workload;

/** Spins briefly, then exits with the code given: {@code ExitWith CODE}. */
public final class ExitWith {
    public static void main(String[] args) {
        Hot.sink = Hot.methodA(50_000_000, 1);
        System.exit(Integer.parseInt(args[0]));
    }

    private ExitWith() {
    }
}

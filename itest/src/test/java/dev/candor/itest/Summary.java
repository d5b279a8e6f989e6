package dev.candor.itest;

import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

import java.util.ArrayList;
import java.util.List;

/**
 * Prints one closing line, {@code itest: N passed, N failed, N skipped}, plus the names of the
 * tests that failed or were skipped; `mvn -q` hides Surefire's own summary.
 */
public final class Summary implements TestExecutionListener {
    private int passed;
    private int failed;
    private int skipped;
    private final List<String> notes = new ArrayList<>();

    @Override
    public void testPlanExecutionStarted(TestPlan testPlan) {
        passed = failed = skipped = 0;
        notes.clear();
    }

    @Override
    public void executionSkipped(TestIdentifier test, String reason) {
        if (test.isTest()) {
            skipped++;
            notes.add("skipped " + name(test) + ": " + reason);
        }
    }

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
        if (!test.isTest()) {
            return;
        }
        switch (result.getStatus()) {
            case SUCCESSFUL -> passed++;
            case ABORTED -> {
                skipped++;
                notes.add("skipped " + name(test) + ": "
                        + result.getThrowable().map(Throwable::getMessage).orElse(""));
            }
            case FAILED -> {
                failed++;
                String msg = result.getThrowable().map(Throwable::getMessage).orElse("");
                int nl = msg == null ? -1 : msg.indexOf('\n');
                notes.add("FAILED " + name(test) + ": " + (nl >= 0 ? msg.substring(0, nl) : msg));
            }
        }
    }

    @Override
    public void testPlanExecutionFinished(TestPlan testPlan) {
        if (passed + failed + skipped == 0) {
            return;
        }
        notes.forEach(n -> System.out.println("itest: " + n));
        System.out.println("itest: " + passed + " passed, " + failed + " failed, " + skipped + " skipped");
    }

    private static String name(TestIdentifier test) {
        String cls = test.getSource()
                .filter(MethodSource.class::isInstance)
                .map(src -> ((MethodSource) src).getClassName())
                .map(c -> c.substring(c.lastIndexOf('.') + 1) + " ")
                .orElse("");
        return cls + test.getDisplayName();
    }
}

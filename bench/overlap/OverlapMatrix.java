import dev.candor.compare.Inputs;
import dev.candor.compare.Metrics;
import dev.candor.model.Cct;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code candor compare}'s overlap of every pair of the given profiles, as one JSON matrix on stdout
 * (row i, column j: overlap(file i, file j); the diagonal is 1). The server bench reads it to judge
 * overlaps by all pairs of rounds, not only adjacent ones: each file is read once, where a
 * {@code candor compare} per pair would read every file again for each of its pairs.
 *
 * <p>Run: {@code java -cp build/candor.jar bench/overlap/OverlapMatrix.java [--drop-failures] [--java-only] FILE...}
 * (compare's default options otherwise: frames matched by method, generated names normalized).
 */
public final class OverlapMatrix {
    private OverlapMatrix() {
    }

    public static void main(String[] args) throws Exception {
        Inputs.Options options = Inputs.Options.DEFAULT;
        List<Cct> trees = new ArrayList<>();
        int first = 0;
        for (; first < args.length && args[first].startsWith("--"); first++) {
            switch (args[first]) {
                case "--drop-failures" -> options = options.withDropFailures(true);
                case "--java-only" -> options = options.withJavaOnly(true);
                default -> {
                    System.err.println("OverlapMatrix: unknown option " + args[first]
                            + ": use --drop-failures or --java-only");
                    System.exit(2);
                }
            }
        }
        for (int i = first; i < args.length; i++) {
            trees.add(Inputs.load(Path.of(args[i]), options).cct());
        }
        if (trees.size() < 2) {
            System.err.println("usage: OverlapMatrix [--drop-failures] [--java-only] FILE FILE...: at least two profiles");
            System.exit(2);
        }
        StringBuilder json = new StringBuilder("[");
        for (int i = 0; i < trees.size(); i++) {
            json.append(i == 0 ? "[" : ",\n[");
            for (int j = 0; j < trees.size(); j++) {
                double v = i == j ? 1.0 : Metrics.overlap(trees.get(i), trees.get(j));
                json.append(j == 0 ? "" : ",").append(String.format(Locale.ROOT, "%.5f", v));
            }
            json.append(']');
        }
        System.out.println(json.append(']'));
    }
}

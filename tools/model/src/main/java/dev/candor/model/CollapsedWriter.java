package dev.candor.model;

import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Writes folded stacks, one distinct stack a line, sorted: {@code root;...;leaf count} (leaf
 * first with {@code reverse}; a {@code [name tid=N]} root with {@code threads}). The same format
 * the agent writes and {@link CollapsedProfile} reads.
 */
public final class CollapsedWriter {
    private CollapsedWriter() {
    }

    public static void write(Profile profile, ReportOptions options, Writer out) throws IOException {
        CollapsedProfile folded = profile.toCollapsed(options.threads(), options.lines(), options.reverse());
        List<String> lines = new ArrayList<>(folded.stacks().size());
        for (CollapsedProfile.Stack s : folded.stacks()) {
            if (s.count() > 0) {
                lines.add(s.toString());
            }
        }
        lines.sort(Comparator.naturalOrder());
        for (String l : lines) {
            out.write(l);
            out.write('\n');
        }
    }
}

package dev.candor.model;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/** Reads any input candor can report on: a JFR recording (by its magic bytes) or collapsed stacks. */
public final class ProfileReader {
    private ProfileReader() {
    }

    /**
     * Reads the file.
     *
     * @throws ProfileFormatException when it is neither a JFR recording nor collapsed stacks
     * @throws IOException            when it cannot be read
     */
    public static Recording read(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new java.nio.file.NoSuchFileException(file.toString(), null,
                    Files.exists(file) ? "not a regular file" : "no such file");
        }
        if (JfrProfileReader.isJfr(file)) {
            return JfrProfileReader.read(file);
        }
        String lower = file.getFileName().toString().toLowerCase(Locale.ROOT);
        if (lower.endsWith(".jfr")) {
            throw new ProfileFormatException(file.toString(), 0,
                    "not a JFR recording (it does not start with the magic bytes 'FLR\\0')");
        }
        CollapsedProfile p;
        try {
            p = CollapsedProfile.read(file);
        } catch (java.nio.charset.MalformedInputException e) {
            throw new ProfileFormatException(file.toString(), 0,
                    "neither a JFR recording nor collapsed stacks (not UTF-8 text)");
        }
        return new Recording(file.toString(), "collapsed", Map.of(CollapsedProfile.EVENT_TYPE, p.toSamples()),
                null, null, null);
    }
}

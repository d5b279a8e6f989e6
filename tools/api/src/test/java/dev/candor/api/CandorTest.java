package dev.candor.api;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What can be checked without loading the agent into the test JVM (ApiTest in itest does that). */
class CandorTest {

    @Test
    void pathsWithCommasAreRefusedBeforeAnythingIsLoaded() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Candor.dump(Path.of("/tmp/a,b.collapsed")));
        assertTrue(e.getMessage().contains("must not contain ','"), e.getMessage());
        assertNull(Candor.library());
    }

    @Test
    void noAgentInThisJvm() {
        assertNull(Candor.loadedInThisJvm());
    }

    @Test
    void bundledResourceName() {
        assertEquals("/dev/candor/api/native/linux-x86_64/libcandor.so", Candor.BUNDLED);
    }
}

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
    void labelScopesNestAndRestoreWithoutAnAgent() {
        try (LabelScope outer = Candor.label("endpoint", "/users")) {
            try (LabelScope inner = Candor.label("span", "7")) {
                assertEquals(java.util.Map.of("endpoint", "/users", "span", "7"), LabelScope.current());
                try (LabelScope override = Candor.label("endpoint", "/admin")) {
                    assertEquals("/admin", LabelScope.current().get("endpoint"));
                }
                assertEquals("/users", LabelScope.current().get("endpoint"));
            }
            assertEquals(java.util.Map.of("endpoint", "/users"), LabelScope.current());
        }
        assertTrue(LabelScope.current().isEmpty());
        assertNull(Candor.library(), "a label scope loaded no agent");
        assertThrows(IllegalArgumentException.class, () -> Candor.label("", "x"));
        assertThrows(NullPointerException.class, () -> Candor.label("k", null));
    }

    @Test
    void aScopeIsClosedByItsOwnThread() throws Exception {
        LabelScope scope = Candor.label("k", "v");
        Throwable[] seen = new Throwable[1];
        Thread other = new Thread(() -> {
            try {
                scope.close();
            } catch (Throwable t) {
                seen[0] = t;
            }
        });
        other.start();
        other.join();
        assertTrue(seen[0] instanceof IllegalStateException, String.valueOf(seen[0]));
        scope.close();
        assertTrue(LabelScope.current().isEmpty());
    }

    @Test
    void bundledResourceName() {
        assertEquals("/dev/candor/api/native/linux-x86_64/libcandor.so", Candor.BUNDLED);
    }
}

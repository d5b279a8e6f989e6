package dev.candor.model;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Allocation events: class names as JFR writes them, and the frame and unit they become. */
class AllocEventsTest {

    @Test
    void classNamesInJavaForm() {
        assertEquals("byte[]", JfrEvents.javaClassName("[B"));
        assertEquals("java.lang.String[][]", JfrEvents.javaClassName("[[Ljava.lang.String;"));
        assertEquals("java.lang.String[]", JfrEvents.javaClassName("[Ljava/lang/String;"));
        assertEquals("java.util.HashMap$Node", JfrEvents.javaClassName("java.util.HashMap$Node"));
    }

    @Test
    void allocatedClassIsItsOwnKindOfFrame() {
        Frame f = Frame.allocated("byte[]");
        assertEquals("byte[]", f.name());
        assertEquals('a', f.viewerKind());
        assertEquals(false, f.isPseudo());
        assertEquals(false, f.isNativeCode());
    }
}

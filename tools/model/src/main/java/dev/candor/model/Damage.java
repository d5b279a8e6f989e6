package dev.candor.model;

/**
 * Where an input file stops being readable, and why. Readers report what precedes it.
 *
 * @param offset  byte offset of the damage (for a truncated file: its length)
 * @param message what is wrong there, e.g. "the file ends inside chunk 2, which should end at byte 9000"
 */
public record Damage(long offset, String message) {
    @Override
    public String toString() {
        return "damaged at byte " + offset + ": " + message;
    }
}

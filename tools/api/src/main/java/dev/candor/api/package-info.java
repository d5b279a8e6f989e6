/** In-process control of the candor agent. */
package dev.candor.api;

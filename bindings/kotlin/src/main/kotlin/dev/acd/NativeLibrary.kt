// Loads acd's native library for the uniffi-generated code (package `acd`),
// so that a platform this jar carries no library for fails with one clear,
// typed error instead of JNA's bare "Unable to load library".
//
// scripts/lib/build-ffi.sh routes the generated code's two
// `Native.register(...)` calls through [NativeLibrary.register]. The jar
// carries `linux-x86-64/libacd_ffi.so` (glibc 2.17 or newer) only.
package dev.acd

import com.sun.jna.Native
import com.sun.jna.Platform

/**
 * acd's native library does not load on this platform: the jar carries none
 * for it (or one that cannot run here). The message names the platform (JNA's
 * resource prefix, e.g. `darwin-aarch64`) and how to build from source.
 *
 * An [UnsatisfiedLinkError], as JNA's own failure is, so it reaches the
 * caller as it is when thrown while the generated library object initialises.
 *
 * @property platform JNA's name of the running platform, e.g. `linux-aarch64`.
 */
class UnsupportedPlatformError(val platform: String, cause: Throwable?) :
    UnsatisfiedLinkError(
        "acd-client (Kotlin) has no native library that loads on this platform ($platform): " +
            "${cause?.message ?: "not found"}. The published jar carries $SUPPORTED_PLATFORM only; " +
            "on any other platform build it from source with Rust stable and Maven: " +
            "scripts/test-kotlin in a clone of the repository builds and installs " +
            "dev.acd:acd-client with the library for the machine it runs on.",
    ) {
    init {
        if (cause != null) initCause(cause)
    }

    private companion object {
        /** The one platform the published jar's native library is built for. */
        const val SUPPORTED_PLATFORM = "linux-x86-64/libacd_ffi.so (Linux x86-64, glibc 2.17 or newer)"
    }
}

/** The loader the generated bindings call (see the file's header). */
object NativeLibrary {
    /**
     * Registers [library]'s native methods with JNA from the library [name],
     * as `Native.register` does; throws [UnsupportedPlatformError] when the
     * library does not load here.
     */
    @JvmStatic
    fun register(library: Class<*>, name: String) {
        try {
            Native.register(library, name)
        } catch (error: UnsatisfiedLinkError) {
            throw UnsupportedPlatformError(Platform.RESOURCE_PREFIX, error)
        }
    }
}

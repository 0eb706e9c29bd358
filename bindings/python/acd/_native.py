"""Loads acd's native library first, so that a platform the installed
package has no library for fails with one clear error instead of ctypes'
bare ``OSError`` from inside the generated module.

The published wheel carries ``libacd_ffi.so`` for Linux on x86-64 (glibc
2.17 or newer); anywhere else the package is built from its source
distribution, which needs Rust.
"""
import platform
import sys

__all__ = ["UnsupportedPlatformError"]

#: The one platform the published wheel's native library is built for.
SUPPORTED_PLATFORM = "Linux x86-64 (glibc 2.17 or newer)"


class UnsupportedPlatformError(ImportError):
    """acd's native library does not load here: this installation carries
    none for this platform (or one that cannot run on it). The message names
    the platform and how to build the package from source."""

    def __init__(self, platform_name: str, cause: str) -> None:
        self.platform = platform_name
        super().__init__(
            f"acd has no native library that loads on this platform ({platform_name}): {cause}. "
            f"The published wheel covers {SUPPORTED_PLATFORM} only; on any other platform build "
            "from source with Rust stable on PATH (https://rustup.rs): "
            "`pip install acd-<version>.tar.gz` (the sdist), or `pip install ./bindings` "
            "from a clone of the repository."
        )


def _platform_name() -> str:
    """The running platform as a person names it, e.g. ``darwin arm64`` or
    ``linux x86_64 (glibc 2.12)``."""
    name = f"{sys.platform} {platform.machine() or 'unknown machine'}"
    libc, version = platform.libc_ver()
    if libc:
        name += f" ({libc} {version})"
    return name


try:
    from ._ffi import acd_ffi as _acd_ffi  # noqa: F401  (loads libacd_ffi)
except OSError as error:  # ctypes: missing, wrong architecture or too-new glibc
    raise UnsupportedPlatformError(_platform_name(), str(error)) from error

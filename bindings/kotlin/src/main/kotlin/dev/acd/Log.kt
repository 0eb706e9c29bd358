// The `acd` logger: the System.Logger every client writes its waits, retries
// and deprecation notices to, at the level the core gives each notice.
// `ACD_LOG=debug` (or `info`) lowers the `acd` logger's threshold when the
// platform logging (java.util.logging) is the backend, as the other SDKs do.
package dev.acd

import java.util.logging.ConsoleHandler
import java.util.logging.Level
import java.util.logging.Logger

/** The `acd` System.Logger, with `ACD_LOG` applied once per JVM. */
internal fun acdLogger(): System.Logger = AcdLog.logger

private object AcdLog {
    val logger: System.Logger

    init {
        applyAcdLog(System.getenv("ACD_LOG"))
        logger = System.getLogger("acd")
    }
}

/** Lowers the `java.util.logging` threshold of the `acd` logger to [setting] (`debug` or `info`); anything else changes nothing. */
internal fun applyAcdLog(setting: String?) {
    val level =
        when (setting?.trim()?.lowercase()) {
            "debug" -> Level.FINE
            "info" -> Level.INFO
            else -> return
        }
    val logger = Logger.getLogger("acd")
    logger.level = level
    if (logger.handlers.none { it is ConsoleHandler }) {
        logger.addHandler(ConsoleHandler().also { it.level = level })
        logger.useParentHandlers = false
    }
}

/** The `System.Logger` level of the core's notice level. */
internal fun levelOf(level: String?): System.Logger.Level =
    when (level) {
        "warning" -> System.Logger.Level.WARNING
        "debug" -> System.Logger.Level.DEBUG
        else -> System.Logger.Level.INFO
    }

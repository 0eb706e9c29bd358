// A minimal JSON reader for the conformance vectors (Java 17 has none):
// objects become LinkedHashMap (member order kept), arrays List, numbers Long
// (the vectors hold integers below 2^53) or Double, plus String, Boolean, null.
package acdtest

class Json private constructor(private val text: String) {
    private var at = 0

    companion object {
        fun parse(text: String): Any? {
            val reader = Json(text)
            val value = reader.value()
            reader.space()
            require(reader.at == text.length) { "trailing characters at ${reader.at}" }
            return value
        }
    }

    private fun space() {
        while (at < text.length && text[at] in " \t\r\n") at++
    }

    private fun expect(c: Char) {
        space()
        require(at < text.length && text[at] == c) { "expected '$c' at $at" }
        at++
    }

    private fun value(): Any? {
        space()
        require(at < text.length) { "unexpected end" }
        return when (val c = text[at]) {
            '{' -> obj()
            '[' -> arr()
            '"' -> str()
            't' -> literal("true", true)
            'f' -> literal("false", false)
            'n' -> literal("null", null)
            else -> if (c == '-' || c.isDigit()) num() else error("unexpected '$c' at $at")
        }
    }

    private fun literal(word: String, result: Any?): Any? {
        require(text.startsWith(word, at)) { "expected $word at $at" }
        at += word.length
        return result
    }

    private fun obj(): Map<String, Any?> {
        expect('{')
        val out = LinkedHashMap<String, Any?>()
        space()
        if (text[at] == '}') { at++; return out }
        while (true) {
            space()
            val key = str()
            expect(':')
            out[key] = value()
            space()
            if (text[at] == ',') { at++; continue }
            expect('}')
            return out
        }
    }

    private fun arr(): List<Any?> {
        expect('[')
        val out = ArrayList<Any?>()
        space()
        if (text[at] == ']') { at++; return out }
        while (true) {
            out.add(value())
            space()
            if (text[at] == ',') { at++; continue }
            expect(']')
            return out
        }
    }

    private fun str(): String {
        expect('"')
        val out = StringBuilder()
        while (true) {
            val c = text[at++]
            when (c) {
                '"' -> return out.toString()
                '\\' -> {
                    when (val e = text[at++]) {
                        '"', '\\', '/' -> out.append(e)
                        'b' -> out.append('\b')
                        'f' -> out.append('\u000C')
                        'n' -> out.append('\n')
                        'r' -> out.append('\r')
                        't' -> out.append('\t')
                        'u' -> { out.append(text.substring(at, at + 4).toInt(16).toChar()); at += 4 }
                        else -> error("bad escape \\$e at $at")
                    }
                }
                else -> out.append(c)
            }
        }
    }

    private fun num(): Any {
        val start = at
        while (at < text.length && (text[at].isDigit() || text[at] in "+-.eE")) at++
        val raw = text.substring(start, at)
        return raw.toLongOrNull() ?: raw.toDouble()
    }
}

@Suppress("UNCHECKED_CAST")
fun Any?.obj(): Map<String, Any?> = this as Map<String, Any?>

@Suppress("UNCHECKED_CAST")
fun Any?.arr(): List<Any?> = this as List<Any?>

fun Any?.str(): String = this as String

fun Any?.long(): Long = this as Long

/** Writes a parsed value back as compact JSON (member order kept). */
fun toJson(value: Any?): String = when (value) {
    null -> "null"
    is String -> buildString {
        append('"')
        for (c in value) {
            when {
                c == '"' -> append("\\\"")
                c == '\\' -> append("\\\\")
                c < ' ' -> append("\\u%04x".format(c.code))
                else -> append(c)
            }
        }
        append('"')
    }
    is Map<*, *> -> value.entries.joinToString(",", "{", "}") { "${toJson(it.key)}:${toJson(it.value)}" }
    is List<*> -> value.joinToString(",", "[", "]") { toJson(it) }
    else -> value.toString()
}

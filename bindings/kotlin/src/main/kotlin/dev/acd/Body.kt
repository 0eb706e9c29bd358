// Bytes with value semantics: `Body` wraps a request or response body so
// that data classes holding one compare by content, and callers cannot
// change the bytes after the fact.
package dev.acd

/**
 * An immutable body: a copy of the bytes, compared by content.
 *
 * Use [toByteArray] for a fresh copy and [text] to read it as UTF-8.
 */
class Body(bytes: ByteArray) {
    private val bytes: ByteArray = bytes.copyOf()

    /** The number of bytes. */
    val size: Long get() = bytes.size.toLong()

    /** A fresh copy of the bytes. */
    fun toByteArray(): ByteArray = bytes.copyOf()

    /** The bytes decoded as UTF-8 (malformed sequences become U+FFFD). */
    fun text(): String = bytes.decodeToString()

    /** Whether [other] is a body with the same bytes. */
    override fun equals(other: Any?): Boolean = other is Body && bytes.contentEquals(other.bytes)

    /** A hash of the bytes' content. */
    override fun hashCode(): Int = bytes.contentHashCode()

    /** The size only (a body may hold anything, secrets included). */
    override fun toString(): String = "Body(${bytes.size} bytes)"

    /** Constructors. */
    companion object {
        /** The empty body. */
        @JvmField
        val EMPTY: Body = Body(ByteArray(0))

        /** A body holding [text] encoded as UTF-8. */
        @JvmStatic
        fun of(text: String): Body = Body(text.encodeToByteArray())
    }
}

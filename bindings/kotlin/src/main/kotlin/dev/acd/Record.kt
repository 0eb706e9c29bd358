// One record of a table, a connection entity or a run: the JSON object as
// the API sent it, immutable, with typed accessors for its members.
package dev.acd

import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.booleanOrNull
import kotlinx.serialization.json.contentOrNull
import kotlinx.serialization.json.longOrNull

/**
 * One record: a JSON object, compared by content.
 *
 * `record["id"]` is the raw member; [string], [long] and [boolean] read a
 * member of that type, or give `null` when it is absent, `null` or of
 * another type.
 */
data class Record(
    /** The record as received. */
    val json: JsonObject,
) {
    /** The member [name], as received (`null` when absent). */
    operator fun get(name: String): JsonElement? = json[name]

    /** The member [name] when it is a JSON string (`getString` from Java). */
    @JvmName("getString")
    fun string(name: String): String? =
        (json[name] as? JsonPrimitive)?.takeIf { it.isString }?.contentOrNull

    /** The member [name] when it is a JSON integer that fits a `Long` (`getLong` from Java). */
    @JvmName("getLong")
    fun long(name: String): Long? =
        (json[name] as? JsonPrimitive)?.takeIf { !it.isString && it !is JsonNull }?.longOrNull

    /** The member [name] when it is a JSON boolean (`getBoolean` from Java). */
    @JvmName("getBoolean")
    fun boolean(name: String): Boolean? =
        (json[name] as? JsonPrimitive)?.takeIf { !it.isString }?.booleanOrNull

    /** The record as compact JSON text. */
    override fun toString(): String = json.toString()
}

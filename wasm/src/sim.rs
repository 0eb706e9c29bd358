//! The simulation for JavaScript: `simulate(config)` runs client instances
//! against a real gate in virtual time (acd-core's `sim`) and returns the
//! report, so a JavaScript test can assert on the trace.

use crate::error::{ErrorClass, Failure};
use crate::js;
use serde_json::Value;
use wasm_bindgen::prelude::*;

/// Member names of `value` in camelCase (`elapsed_ms` to `elapsedMs`).
fn camel_case_keys(value: &mut Value) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(camel_case_keys),
        Value::Object(members) => {
            let taken = std::mem::take(members);
            for (name, mut member) in taken {
                camel_case_keys(&mut member);
                let mut out = String::with_capacity(name.len());
                let mut upper = false;
                for character in name.chars() {
                    if character == '_' {
                        upper = true;
                    } else if upper {
                        out.push(character.to_ascii_uppercase());
                        upper = false;
                    } else {
                        out.push(character);
                    }
                }
                members.insert(out, member);
            }
        }
        _ => {}
    }
}

/// Runs a simulation: `config` is a `SimConfig` (every member optional,
/// camelCase or snake_case); the result is its report with camelCase
/// members. Throws `AcdConfigError` when the configuration is refused.
#[wasm_bindgen(unchecked_return_type = "SimReport")]
pub fn simulate(
    #[wasm_bindgen(unchecked_param_type = "SimConfig | string | null")] config: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    let config: Value = js::from_json_like(&config.unwrap_or(JsValue::UNDEFINED), "simulation")?
        .unwrap_or_else(|| Value::Object(serde_json::Map::new()));
    let report = acd_core::sim::run_json(&config.to_string())
        .map_err(|error| Failure::new(ErrorClass::Config, "INVALID_CONFIG", error.to_string()))?;
    let mut report: Value = js::parse_json_text(&report, "simulation report")?;
    camel_case_keys(&mut report);
    Ok(js::json_to_js(&report))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_members_become_camel_case() {
        let mut value = serde_json::json!({"elapsed_ms": 1, "clients": [{"requests_sent": 2}]});
        camel_case_keys(&mut value);
        assert_eq!(
            value,
            serde_json::json!({"elapsedMs": 1, "clients": [{"requestsSent": 2}]})
        );
    }
}

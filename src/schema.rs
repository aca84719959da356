//! A small JSON Schema validator for `--output-schema`: the keywords models and scripts use
//! (`type` with unions and `nullable`, `properties`, `required`, `additionalProperties`, `items`,
//! `enum`, `const`, `minimum`/`maximum` and their exclusive forms, lengths and item counts,
//! `anyOf`/`oneOf`/`allOf`/`not`, local `$ref`s). Written here rather than taking the
//! `jsonschema` crate, which adds 34 crates and about 30 s of CPU to a clean build
//! (`shared/reference/crates.md`) for keywords a final answer's schema rarely needs. Keywords it
//! does not know (`pattern`, `format`, ...) are not checked. Imports nothing of ours.

use serde_json::{Map, Value};

/// Deeper than this, a schema (or a `$ref` cycle) is not followed further.
const MAX_DEPTH: usize = 64;
/// At most this many errors are reported for one value.
const MAX_ERRORS: usize = 10;
const TYPES: &[&str] = &[
    "null", "boolean", "object", "array", "number", "integer", "string",
];

/// A schema that was checked to be one this validator understands.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Schema {
    root: Value,
}

impl Schema {
    /// Checks that `root` is a schema: an object or a boolean, with known type names, local
    /// `$ref`s that resolve, and keywords of the right JSON type.
    pub(crate) fn new(root: Value) -> Result<Schema, String> {
        let schema = Schema { root };
        schema.check(&schema.root, "#", 0)?;
        Ok(schema)
    }

    /// The schema as written.
    pub(crate) fn as_value(&self) -> &Value {
        &self.root
    }

    /// Why `value` does not match, one line per problem (empty when it does), each starting with
    /// where in the value it is (`$`, `$.items[2].name`).
    pub(crate) fn validate(&self, value: &Value) -> Vec<String> {
        let mut errors = Vec::new();
        self.walk(&self.root, value, "$", 0, &mut errors);
        if errors.len() > MAX_ERRORS {
            let more = errors.len() - MAX_ERRORS;
            errors.truncate(MAX_ERRORS);
            errors.push(format!("... and {more} more"));
        }
        errors
    }

    fn resolve<'s>(&'s self, reference: &str) -> Option<&'s Value> {
        let pointer = reference.strip_prefix('#')?;
        if pointer.is_empty() {
            return Some(&self.root);
        }
        self.root.pointer(pointer)
    }

    fn check(&self, schema: &Value, at: &str, depth: usize) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!("{at}: nested too deeply"));
        }
        let object = match schema {
            Value::Bool(_) => return Ok(()),
            Value::Object(object) => object,
            _ => return Err(format!("{at}: a schema must be an object or a boolean")),
        };
        check_keywords(object, at)?;
        if let Some(reference) = object.get("$ref") {
            let target = reference.as_str().and_then(|r| self.resolve(r));
            if target.is_none() {
                return Err(format!(
                    "{at}: $ref {reference} does not point into this file (only local references like \"#/$defs/Name\" are supported)"
                ));
            }
        }
        for (key, sub) in subschemas(object) {
            self.check(sub, &format!("{at}/{key}"), depth + 1)?;
        }
        Ok(())
    }

    fn walk(&self, schema: &Value, value: &Value, at: &str, depth: usize, out: &mut Vec<String>) {
        let object = match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => return out.push(format!("{at}: no value is allowed here")),
            Value::Object(object) => object,
            _ => return,
        };
        if depth > MAX_DEPTH {
            return out.push(format!("{at}: the schema nests too deeply to check"));
        }
        if let Some(target) = object.get("$ref").and_then(Value::as_str)
            && let Some(target) = self.resolve(target)
        {
            self.walk(target, value, at, depth + 1, out);
        }
        if !type_fits(object, value) {
            return out.push(format!(
                "{at}: expected {}, got {}",
                expected_types(object),
                describe(value)
            ));
        }
        values_fit(object, value, at, out);
        self.combinators(object, value, at, depth, out);
        match value {
            Value::Object(fields) => self.object_fits(object, fields, at, depth, out),
            Value::Array(items) => self.array_fits(object, items, at, depth, out),
            _ => {}
        }
    }

    fn combinators(
        &self,
        object: &Map<String, Value>,
        value: &Value,
        at: &str,
        depth: usize,
        out: &mut Vec<String>,
    ) {
        let fits = |schema: &Value| {
            let mut errors = Vec::new();
            self.walk(schema, value, at, depth + 1, &mut errors);
            errors
        };
        if let Some(all) = object.get("allOf").and_then(Value::as_array) {
            for schema in all {
                out.extend(fits(schema));
            }
        }
        if let Some(any) = object.get("anyOf").and_then(Value::as_array) {
            let failures: Vec<Vec<String>> = any.iter().map(fits).collect();
            if failures.iter().all(|errors| !errors.is_empty()) {
                out.push(format!(
                    "{at}: matches none of the anyOf alternatives ({})",
                    first_errors(&failures)
                ));
            }
        }
        if let Some(one) = object.get("oneOf").and_then(Value::as_array) {
            let failures: Vec<Vec<String>> = one.iter().map(fits).collect();
            match failures.iter().filter(|errors| errors.is_empty()).count() {
                1 => {}
                0 => out.push(format!(
                    "{at}: matches none of the oneOf alternatives ({})",
                    first_errors(&failures)
                )),
                n => out.push(format!(
                    "{at}: matches {n} of the oneOf alternatives, not exactly one"
                )),
            }
        }
        if let Some(not) = object.get("not")
            && fits(not).is_empty()
        {
            out.push(format!("{at}: matches the schema under \"not\""));
        }
    }

    fn object_fits(
        &self,
        object: &Map<String, Value>,
        fields: &Map<String, Value>,
        at: &str,
        depth: usize,
        out: &mut Vec<String>,
    ) {
        for name in strings(object.get("required")) {
            if !fields.contains_key(name) {
                out.push(format!("{at}: missing required property \"{name}\""));
            }
        }
        let properties = object.get("properties").and_then(Value::as_object);
        for (name, field) in fields {
            let path = format!("{at}.{name}");
            match properties.and_then(|p| p.get(name)) {
                Some(schema) => self.walk(schema, field, &path, depth + 1, out),
                None => match object.get("additionalProperties") {
                    Some(Value::Bool(false)) => {
                        out.push(format!("{at}: property \"{name}\" is not allowed"));
                    }
                    Some(schema) => self.walk(schema, field, &path, depth + 1, out),
                    None => {}
                },
            }
        }
        count_fits(
            object,
            "minProperties",
            "maxProperties",
            fields.len(),
            "properties",
            at,
            out,
        );
    }

    fn array_fits(
        &self,
        object: &Map<String, Value>,
        items: &[Value],
        at: &str,
        depth: usize,
        out: &mut Vec<String>,
    ) {
        let tuple = object.get("prefixItems").and_then(Value::as_array);
        for (n, item) in items.iter().enumerate() {
            let schema = match tuple.and_then(|t| t.get(n)) {
                Some(schema) => Some(schema),
                None => object.get("items"),
            };
            if let Some(schema) = schema {
                self.walk(schema, item, &format!("{at}[{n}]"), depth + 1, out);
            }
        }
        count_fits(
            object,
            "minItems",
            "maxItems",
            items.len(),
            "items",
            at,
            out,
        );
        if object.get("uniqueItems") == Some(&Value::Bool(true)) {
            let repeated = items
                .iter()
                .enumerate()
                .any(|(n, item)| items[..n].contains(item));
            if repeated {
                out.push(format!("{at}: items must be unique"));
            }
        }
    }
}

/// The keywords that hold schemas, with where they are (for error messages).
fn subschemas(object: &Map<String, Value>) -> Vec<(String, &Value)> {
    let mut subs = Vec::new();
    for key in ["items", "not", "additionalProperties"] {
        if let Some(sub) = object.get(key).filter(|s| !s.is_array()) {
            subs.push((key.to_string(), sub));
        }
    }
    for key in ["properties", "$defs", "definitions"] {
        for (name, sub) in object
            .get(key)
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            subs.push((format!("{key}/{name}"), sub));
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        for (n, sub) in object
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            subs.push((format!("{key}/{n}"), sub));
        }
    }
    subs
}

/// Keywords of the wrong JSON type are a broken schema, said at once rather than ignored.
fn check_keywords(object: &Map<String, Value>, at: &str) -> Result<(), String> {
    if let Some(kind) = object.get("type") {
        let names: Vec<&Value> = match kind {
            Value::Array(names) => names.iter().collect(),
            other => vec![other],
        };
        for name in names {
            if !name.as_str().is_some_and(|n| TYPES.contains(&n)) {
                return Err(format!(
                    "{at}: unknown type {name} (expected one of {})",
                    TYPES.join(", ")
                ));
            }
        }
    }
    let wrong = |key: &str, what: &str| format!("{at}: \"{key}\" must be {what}");
    if let Some(required) = object.get("required")
        && !required
            .as_array()
            .is_some_and(|r| r.iter().all(Value::is_string))
    {
        return Err(wrong("required", "an array of property names"));
    }
    for key in ["properties", "$defs", "definitions"] {
        if object.get(key).is_some_and(|v| !v.is_object()) {
            return Err(wrong(key, "an object"));
        }
    }
    for key in ["enum", "anyOf", "oneOf", "allOf", "prefixItems"] {
        if object.get(key).is_some_and(|v| !v.is_array()) {
            return Err(wrong(key, "an array"));
        }
    }
    for key in [
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "minProperties",
        "maxProperties",
    ] {
        if object.get(key).is_some_and(|v| !v.is_number()) {
            return Err(wrong(key, "a number"));
        }
    }
    Ok(())
}

fn strings(value: Option<&Value>) -> impl Iterator<Item = &str> {
    value
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

/// `type` (one name or a union) and OpenAPI's `nullable`.
fn type_fits(object: &Map<String, Value>, value: &Value) -> bool {
    let names: Vec<&str> = match object.get("type") {
        None => return true,
        Some(Value::String(name)) => vec![name.as_str()],
        Some(other) => strings(Some(other)).collect(),
    };
    let nullable = object.get("nullable") == Some(&Value::Bool(true));
    (nullable && value.is_null()) || names.iter().any(|name| is_type(name, value))
}

fn is_type(name: &str, value: &Value) -> bool {
    match name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "number" => value.is_number(),
        "integer" => {
            value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|n| n.fract() == 0.0)
        }
        "string" => value.is_string(),
        _ => false,
    }
}

fn expected_types(object: &Map<String, Value>) -> String {
    let mut names: Vec<String> = match object.get("type") {
        Some(Value::String(name)) => vec![name.clone()],
        other => strings(other).map(String::from).collect(),
    };
    if object.get("nullable") == Some(&Value::Bool(true)) {
        names.push("null".into());
    }
    names.join(" or ")
}

fn describe(value: &Value) -> String {
    let kind = match value {
        Value::Null => return "null".into(),
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => return "an array".into(),
        Value::Object(_) => return "an object".into(),
    };
    let mut shown = value.to_string();
    if shown.len() > 40 {
        let cut = (0..=40)
            .rev()
            .find(|&n| shown.is_char_boundary(n))
            .unwrap_or(0);
        shown.truncate(cut);
        shown.push_str("...");
    }
    format!("{kind} {shown}")
}

/// `enum`, `const`, number bounds and string lengths.
fn values_fit(object: &Map<String, Value>, value: &Value, at: &str, out: &mut Vec<String>) {
    if let Some(allowed) = object.get("enum").and_then(Value::as_array)
        && !allowed.contains(value)
    {
        let list: Vec<String> = allowed.iter().map(Value::to_string).collect();
        out.push(format!(
            "{at}: {} is not one of {}",
            describe(value),
            list.join(", ")
        ));
    }
    if let Some(constant) = object.get("const")
        && constant != value
    {
        out.push(format!("{at}: must be {constant}"));
    }
    if let Some(n) = value.as_f64() {
        let bound = |key: &str| object.get(key).and_then(Value::as_f64);
        let checks = [
            ("minimum", bound("minimum").filter(|m| n < *m), "at least"),
            ("maximum", bound("maximum").filter(|m| n > *m), "at most"),
            (
                "exclusiveMinimum",
                bound("exclusiveMinimum").filter(|m| n <= *m),
                "more than",
            ),
            (
                "exclusiveMaximum",
                bound("exclusiveMaximum").filter(|m| n >= *m),
                "less than",
            ),
        ];
        for (_, broken, what) in checks {
            if let Some(limit) = broken {
                out.push(format!("{at}: {n} is not {what} {limit}"));
            }
        }
    }
    if let Some(text) = value.as_str() {
        count_fits(
            object,
            "minLength",
            "maxLength",
            text.chars().count(),
            "characters",
            at,
            out,
        );
    }
}

fn count_fits(
    object: &Map<String, Value>,
    min: &str,
    max: &str,
    count: usize,
    unit: &str,
    at: &str,
    out: &mut Vec<String>,
) {
    let count = count as f64;
    if let Some(limit) = object
        .get(min)
        .and_then(Value::as_f64)
        .filter(|m| count < *m)
    {
        out.push(format!("{at}: has {count} {unit}, fewer than {limit}"));
    }
    if let Some(limit) = object
        .get(max)
        .and_then(Value::as_f64)
        .filter(|m| count > *m)
    {
        out.push(format!("{at}: has {count} {unit}, more than {limit}"));
    }
}

fn first_errors(failures: &[Vec<String>]) -> String {
    failures
        .iter()
        .filter_map(|errors| errors.first())
        .cloned()
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errors(schema: Value, value: Value) -> Vec<String> {
        Schema::new(schema)
            .map(|s| s.validate(&value))
            .unwrap_or_else(|e| vec![e])
    }

    #[test]
    fn objects_check_required_types_and_extra_properties() {
        let schema = json!({"type": "object", "required": ["failing"], "additionalProperties": false,
            "properties": {"failing": {"type": "array", "items": {"type": "string"}}, "count": {"type": "integer", "minimum": 0}}});
        assert!(errors(schema.clone(), json!({"failing": ["a"], "count": 1})).is_empty());
        assert_eq!(
            errors(schema.clone(), json!({"count": -1, "extra": true})),
            vec![
                "$: missing required property \"failing\"",
                "$.count: -1 is not at least 0",
                "$: property \"extra\" is not allowed",
            ]
        );
        assert_eq!(
            errors(schema, json!({"failing": ["a", 2]})),
            vec!["$.failing[1]: expected string, got number 2"]
        );
    }

    #[test]
    fn unions_nullable_enum_and_const() {
        let schema = json!({"type": ["string", "null"], "enum": ["a", null]});
        assert!(errors(schema.clone(), json!(null)).is_empty());
        assert_eq!(
            errors(schema, json!("b")),
            vec!["$: string \"b\" is not one of \"a\", null"]
        );
        let nullable = json!({"type": "integer", "nullable": true});
        assert!(errors(nullable.clone(), json!(null)).is_empty());
        assert!(errors(nullable.clone(), json!(2.0)).is_empty());
        assert_eq!(
            errors(nullable, json!("x")),
            vec!["$: expected integer or null, got string \"x\""]
        );
        assert_eq!(errors(json!({"const": 3}), json!(4)), vec!["$: must be 3"]);
    }

    #[test]
    fn combinators_and_local_refs() {
        let schema = json!({"$defs": {"n": {"type": "number"}},
            "anyOf": [{"$ref": "#/$defs/n"}, {"type": "string", "maxLength": 2}]});
        assert!(errors(schema.clone(), json!(1.5)).is_empty());
        assert!(errors(schema.clone(), json!("ab")).is_empty());
        assert_eq!(
            errors(schema, json!("abc")),
            vec![
                "$: matches none of the anyOf alternatives ($: expected number, got string \"abc\"; $: has 3 characters, more than 2)"
            ]
        );
        let one = json!({"oneOf": [{"type": "integer"}, {"type": "number"}]});
        assert_eq!(
            errors(one, json!(1)),
            vec!["$: matches 2 of the oneOf alternatives, not exactly one"]
        );
    }

    #[test]
    fn broken_schemas_are_refused_with_where() {
        assert_eq!(
            Schema::new(json!({"properties": {"a": {"type": "strin"}}})).err(),
            Some("#/properties/a: unknown type \"strin\" (expected one of null, boolean, object, array, number, integer, string)".into())
        );
        assert!(Schema::new(json!({"$ref": "https://example.com/s.json"})).is_err());
        assert!(Schema::new(json!({"required": "a"})).is_err());
        assert!(Schema::new(json!([1])).is_err());
        assert!(Schema::new(json!(true)).is_ok());
    }

    #[test]
    fn a_recursive_ref_stops_at_the_depth_limit() {
        let schema = json!({"$ref": "#"});
        let found = errors(schema, json!(1));
        assert_eq!(found, vec!["$: the schema nests too deeply to check"]);
    }

    #[test]
    fn many_errors_are_cut_to_ten_and_a_count() {
        let schema = json!({"type": "array", "items": {"type": "string"}});
        let found = errors(schema, json!([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]));
        assert_eq!(found.len(), 11);
        assert_eq!(found[10], "... and 2 more");
    }
}

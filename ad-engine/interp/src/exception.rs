//! Exceptions as values: what `catch e` binds. Both engines raise an exception as its one-line
//! Julia message (`DomainError with -1.0: ...`) of a known [`ErrorKind`]; a caught one reads
//! its fields back from that text, so every exception the runtime or the program raises is
//! caught by type. A value the program throws (`throw(MyError("x"))`, `throw(1)`) is kept
//! beside its text: its type and fields are the value's own.

use zy_ir::Span;

use crate::error_kind::ErrorKind;
use crate::value::Value;

/// A caught exception: its Julia type and its one-line message.
#[derive(Clone, Debug)]
pub struct Caught {
    /// Its type (`DomainError`, `ErrorException`, the type of a value thrown).
    pub kind: ErrorKind,
    /// The message as raised: rethrowing raises it again unchanged.
    pub text: String,
    /// Where it was raised, and the calls it was raised under (innermost first): an uncaught
    /// rethrow reports them, as Julia reports the original backtrace.
    pub span: Span,
    pub trace: Vec<Span>,
    /// The value thrown by `throw(x)` of a program's exception type or of a value that is no
    /// exception; `None` for Base's exceptions, known by their text.
    pub value: Option<Value>,
    /// The object a `BoundsError` was raised about (Julia's field `a`), where the statement
    /// raising it indexed it.
    pub indexed: Option<Value>,
}

impl Caught {
    /// The exception of kind `kind` raised as `text` at `span` under the calls `trace`.
    pub fn raised(kind: ErrorKind, text: &str, span: Span, trace: Vec<Span>) -> Caught {
        Caught {
            kind,
            text: text.to_string(),
            span,
            trace,
            value: None,
            indexed: None,
        }
    }

    /// The exception a raised message stands for (its kind named by its first word).
    pub fn from_message(text: &str, span: Span, trace: Vec<Span>) -> Caught {
        Caught::raised(ErrorKind::of_message(text), text, span, trace)
    }

    /// The value `x` of `throw(x)`, raised as `text` (`sprint(showerror, x)`).
    pub fn thrown(value: Value, text: &str, span: Span, trace: Vec<Span>) -> Caught {
        let name = match &value {
            Value::Struct(t, _) | Value::Mutable(t, _) => t.name.clone(),
            v => crate::show::type_string(&v.julia_type()).as_str().into(),
        };
        Caught {
            kind: ErrorKind::Thrown(name),
            text: text.to_string(),
            span,
            trace,
            value: Some(value),
            indexed: None,
        }
    }

    /// Julia's type name (`DomainError`, `MyError`).
    pub fn name(&self) -> &str {
        self.kind.name()
    }

    /// `e isa T` for `T` standing for the concrete types `names`: `Exception` stands for
    /// Base's exceptions (a program's own are named), `Any` for every value.
    pub fn isa(&self, names: &[&str]) -> bool {
        names.iter().any(|&ty| {
            ty == "Any" || (ty == "Exception" && self.value.is_none()) || self.name() == ty
        })
    }

    /// The exception as Julia's `showerror` writes it: the raised text, but an
    /// `ErrorException` is its message alone and a `DomainError`'s message is on a line of its
    /// own (`DomainError with -1.0:\nmsg`).
    pub fn showerror_text(&self) -> String {
        if self.value.is_some() {
            return self.text.clone();
        }
        let rest = self.text.get(self.name().len()..).unwrap_or("");
        match self.name() {
            "ErrorException" => rest.strip_prefix(": ").unwrap_or(rest).to_string(),
            "DomainError" => match rest.split_once(": ") {
                Some((val, msg)) => format!("DomainError{val}:\n{msg}"),
                None => self.text.clone(),
            },
            _ => self.text.clone(),
        }
    }

    /// Field `field` of the exception, as Julia defines the type's fields.
    pub fn field(&self, field: &str) -> Result<Value, String> {
        if let Some(v) = &self.value {
            return thrown_field(v, field);
        }
        let rest = self.text.get(self.name().len()..).unwrap_or("");
        match (self.name(), field) {
            // `DomainError with <val>: <msg>`.
            ("DomainError", "val" | "msg") => {
                let body = rest.strip_prefix(" with ").unwrap_or(rest);
                let (val, msg) = body
                    .split_once(": ")
                    .map_or((body, None), |(v, m)| (v, Some(m)));
                if field == "msg" {
                    // `DomainError(x)` leaves `msg` undefined.
                    return msg
                        .map(|m| Value::Str(m.into()))
                        .ok_or_else(|| "UndefRefError: access to undefined reference".to_string());
                }
                // The value keeps its own type, as the text shows it: `2`, `true`, `2.0`.
                match (val, val.parse::<i64>(), val.parse::<f64>()) {
                    ("true" | "false", ..) => Ok(Value::Bool(val == "true")),
                    (_, Ok(n), _) => Ok(Value::Int(n)),
                    (_, _, Ok(x)) => Ok(Value::F64(x)),
                    _ => Err(format!(
                        "ErrorException: zy reads `val` of a DomainError of a number only, not `{val}`"
                    )),
                }
            }
            // The object indexed, where zy kept it.
            ("BoundsError", "a") => self.indexed.clone().ok_or_else(|| {
                "ErrorException: zy keeps `a` of a BoundsError raised by indexing an array or \
                 a string, not of this one"
                    .to_string()
            }),
            // `BoundsError: attempt to access <what> at index [<i>]`: an array's indices as a
            // tuple, a tuple's or a string's one index as it is.
            ("BoundsError", "i") => {
                let (what, index) = rest
                    .strip_prefix(": attempt to access ")
                    .and_then(|r| r.rsplit_once(" at index ["))
                    .ok_or_else(|| "UndefRefError: access to undefined reference".to_string())?;
                let index = index.strip_suffix(']').unwrap_or(index);
                let Ok(ks) = index
                    .split(", ")
                    .map(str::parse::<i64>)
                    .collect::<Result<Vec<i64>, _>>()
                else {
                    return Err(format!(
                        "ErrorException: zy reads `i` of a BoundsError at integer indices only, \
                         not `[{index}]`"
                    ));
                };
                let array = what.contains("-element ")
                    || what.split(' ').next().is_some_and(|d| d.contains('×'));
                match ks.as_slice() {
                    [k] if !array => Ok(Value::Int(*k)),
                    _ => Ok(Value::Tuple(ks.into_iter().map(Value::Int).collect())),
                }
            }
            // `KeyError: key <repr of the key> not found`.
            ("KeyError", "key") => {
                let key = rest
                    .strip_prefix(": key ")
                    .and_then(|r| r.strip_suffix(" not found"))
                    .ok_or_else(|| "UndefRefError: access to undefined reference".to_string())?;
                dict_key(key)
            }
            // `SingularException(<info>)`.
            ("SingularException", "info") => rest
                .strip_prefix('(')
                .and_then(|r| r.strip_suffix(')'))
                .and_then(|k| k.parse::<i64>().ok())
                .map(Value::Int)
                .ok_or_else(|| "UndefRefError: access to undefined reference".to_string()),
            (
                "ErrorException" | "ArgumentError" | "AssertionError" | "DimensionMismatch"
                | "OverflowError" | "TypeError",
                "msg",
            ) => Ok(Value::Str(rest.strip_prefix(": ").unwrap_or(rest).into())),
            _ => Err(format!(
                "FieldError: type {} has no field `{field}`, available fields: {}",
                self.name(),
                self.fields()
            )),
        }
    }

    fn fields(&self) -> &'static str {
        match self.name() {
            "DomainError" => "`val`, `msg`",
            "BoundsError" => "`a`, `i`",
            "KeyError" => "`key`",
            "SingularException" => "`info`",
            "ErrorException" | "ArgumentError" | "AssertionError" | "DimensionMismatch"
            | "OverflowError" => "`msg`",
            _ => "none that zy reads",
        }
    }
}

/// A `KeyError`'s key from its text (`repr` of the key): a string, a symbol or a number.
fn dict_key(shown: &str) -> Result<Value, String> {
    if let Some(text) = shown.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
        let mut out = String::new();
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => out.extend(chars.next().map(|e| match e {
                    'n' => '\n',
                    't' => '\t',
                    e => e,
                })),
                c => out.push(c),
            }
        }
        return Ok(Value::Str(out.as_str().into()));
    }
    if let Some(name) = shown.strip_prefix(':') {
        return Ok(Value::Symbol(name.into()));
    }
    match (shown.parse::<i64>(), shown.parse::<f64>()) {
        (Ok(n), _) => Ok(Value::Int(n)),
        (_, Ok(x)) => Ok(Value::F64(x)),
        _ => Err(format!(
            "ErrorException: zy reads `key` of a KeyError of a string, a symbol or a number only, \
             not `{shown}`"
        )),
    }
}

/// Field `field` of a thrown value, by the field names of its struct type.
fn thrown_field(v: &Value, field: &str) -> Result<Value, String> {
    let (t, fields) = match v {
        Value::Struct(t, fields) => (t, fields.to_vec()),
        Value::Mutable(t, fields) => (t, fields.borrow().clone()),
        other => {
            return Err(format!(
                "FieldError: type {} has no field `{field}`",
                crate::show::type_string(&other.julia_type())
            ))
        }
    };
    match t.fields.iter().position(|(n, _)| **n == *field) {
        Some(i) => fields
            .get(i)
            .cloned()
            .ok_or_else(|| format!("internal error: {} has no field {i}", t.name)),
        None => {
            let names: Vec<String> = t.fields.iter().map(|(n, _)| format!("`{n}`")).collect();
            Err(format!(
                "FieldError: type {} has no field `{field}`, available fields: {}",
                t.name,
                names.join(", ")
            ))
        }
    }
}

//! What `@test_throws X e` asks of the exception `e` throws, by the form of `X`, as Julia's
//! `Test` reads it: a type (`DomainError`: the exception is one), a string (`"must be even"`:
//! the text `showerror` prints contains it), or an exception value (`ErrorException("boom")`,
//! `ArgumentError("n < 0")`: one of that type whose fields are equal, here its message).

use zy_interp::ErrorKind;

/// The form of `X`.
#[derive(Clone, PartialEq, Debug)]
pub(super) enum Expected<'a> {
    /// A type name, qualified or not.
    Type(&'a str),
    /// A plain string literal's text.
    Substring(&'a str),
    /// `T("message")` of an exception type whose one field is its message.
    Value { ty: &'a str, message: &'a str },
    /// Anything else (a regex, a function, an exception value of other fields).
    Other,
}

/// The exception types whose one field is the message: their value is equal to an exception
/// thrown exactly when the texts are.
const MESSAGE_TYPES: [&str; 4] = [
    "ErrorException",
    "ArgumentError",
    "DimensionMismatch",
    "AssertionError",
];

/// `X` as written.
pub(super) fn expected(x: &str) -> Expected<'_> {
    let x = x.trim();
    if let Some(text) = plain_string(x) {
        return Expected::Substring(text);
    }
    if is_type_name(x) {
        return Expected::Type(x);
    }
    let Some((ty, rest)) = x.split_once('(') else {
        return Expected::Other;
    };
    let message = rest.strip_suffix(')').map(str::trim).and_then(plain_string);
    let short = ty.rsplit('.').next().unwrap_or(ty);
    match message {
        Some(message) if is_type_name(ty) && MESSAGE_TYPES.contains(&short) => {
            Expected::Value { ty, message }
        }
        _ => Expected::Other,
    }
}

/// The text of a string literal without interpolation or escapes.
fn plain_string(x: &str) -> Option<&str> {
    let inner = x.strip_prefix('"')?.strip_suffix('"')?;
    (!inner.contains(['"', '$', '\\'])).then_some(inner)
}

/// `DomainError`, `Base.DomainError`: names joined by dots.
fn is_type_name(x: &str) -> bool {
    !x.is_empty()
        && x.split('.').all(|part| {
            part.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
                && part
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '!')
        })
}

/// What Julia's `showerror` prints of the error zy raised as `message` (one line): the
/// message itself, without the type's name for an `ErrorException`, which `error(msg)` shows
/// as `msg` alone, nor zy's note of the library function that raised it.
pub(super) fn shown(kind: &ErrorKind, message: &str) -> String {
    let message = match message.rfind(" (raised in Julia's library, in `") {
        Some(at) if message.ends_with("`)") => &message[..at],
        _ => message,
    };
    match kind {
        ErrorKind::ErrorException => message
            .strip_prefix("ErrorException: ")
            .unwrap_or(message)
            .to_string(),
        _ => message.to_string(),
    }
}

/// Whether the error of `kind` raised as `message` is what `expected` asks for (`Other`
/// never is: the caller says zy cannot run it).
pub(super) fn meets(expected: &Expected, kind: &ErrorKind, message: &str) -> bool {
    match expected {
        Expected::Type(ty) => kind.is_a(ty),
        Expected::Substring(text) => kind.catchable() && shown(kind, message).contains(text),
        Expected::Value { ty, message: m } => {
            let short = ty.rsplit('.').next().unwrap_or(ty);
            let want = match short {
                "ErrorException" => m.to_string(),
                _ => format!("{short}: {m}"),
            };
            kind.is_a(ty) && shown(kind, message) == want
        }
        Expected::Other => false,
    }
}

#[cfg(test)]
mod tests {
    use super::{expected, meets, Expected};
    use zy_interp::ErrorKind;

    #[test]
    fn the_form_of_the_expectation() {
        assert_eq!(expected("DomainError"), Expected::Type("DomainError"));
        assert_eq!(expected("Base.KeyError"), Expected::Type("Base.KeyError"));
        assert_eq!(expected("\"even\""), Expected::Substring("even"));
        assert_eq!(
            expected("ErrorException(\"boom\")"),
            Expected::Value {
                ty: "ErrorException",
                message: "boom"
            }
        );
        assert_eq!(expected("r\"ev.n\""), Expected::Other);
        assert_eq!(expected("\"n = $n\""), Expected::Other);
        assert_eq!(expected("DomainError(-1.0)"), Expected::Other);
        assert_eq!(expected("MyError(\"x\")"), Expected::Other);
    }

    #[test]
    fn messages_are_matched_as_showerror_prints_them() {
        let error = ErrorKind::ErrorException;
        let argument = ErrorKind::ArgumentError;
        let said = "ErrorException: an ERROR here";
        assert!(meets(&expected("\"ERROR\""), &error, said));
        assert!(!meets(&expected("\"ErrorException\""), &error, said));
        assert!(meets(
            &expected("ErrorException(\"an ERROR here\")"),
            &error,
            said
        ));
        assert!(!meets(
            &expected("ErrorException(\"an ERROR\")"),
            &error,
            said
        ));
        let said = "DimensionMismatch: lengths 2 and 3 (raised in Julia's library, in `dot`)";
        let dims = ErrorKind::DimensionMismatch;
        assert!(meets(
            &expected("DimensionMismatch(\"lengths 2 and 3\")"),
            &dims,
            said
        ));
        assert!(!meets(&expected("\"raised\""), &dims, said));
        let said = "ArgumentError: n must be even, got 3";
        assert!(meets(&expected("\"must be even\""), &argument, said));
        assert!(meets(
            &expected("ArgumentError(\"n must be even, got 3\")"),
            &argument,
            said
        ));
        assert!(!meets(
            &expected("ErrorException(\"n must be even, got 3\")"),
            &argument,
            said
        ));
    }
}

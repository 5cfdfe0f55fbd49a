//! What an error of a run is: the Julia exception type it stands for (what `catch e; e isa T`
//! and `@test_throws T` read), or why zy itself stopped, which no `catch` takes.

use zy_ir::Name;

macro_rules! error_kinds {
    ($($(#[$doc:meta])* $name:ident,)*) => {
        /// The kind of a [`crate::RuntimeError`] and of a [`crate::Caught`] exception.
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub enum ErrorKind {
            $($(#[$doc])* $name,)*
            /// Another exception of Julia's, by its type's name (`SingularException`).
            Other(Name),
            /// A value the program threw (`throw(MyError("x"))`, `throw(7)`), by its type's name.
            Thrown(Name),
            /// An operation outside zy's subset (`unsupported: ...`).
            Unsupported,
            /// The run's time limit or its cancellation (`InterruptException: ...`).
            Interrupted,
            /// The run's memory limit (`OutOfMemoryError: ...`).
            OutOfMemory,
            /// A fault of zy itself (`internal error: ...`).
            Internal,
        }

        impl ErrorKind {
            /// The Julia exception type named `name`, if zy raises it.
            fn of_julia(name: &str) -> Option<ErrorKind> {
                match name {
                    $(stringify!($name) => Some(ErrorKind::$name),)*
                    _ => None,
                }
            }

            /// The name of the exception's Julia type (`BoundsError`), or of zy's reason to
            /// stop (`unsupported`, `internal error`).
            pub fn name(&self) -> &str {
                match self {
                    $(ErrorKind::$name => stringify!($name),)*
                    ErrorKind::Other(name) | ErrorKind::Thrown(name) => name,
                    ErrorKind::Unsupported => "unsupported",
                    ErrorKind::Interrupted => "InterruptException",
                    ErrorKind::OutOfMemory => "OutOfMemoryError",
                    ErrorKind::Internal => "internal error",
                }
            }
        }
    };
}

error_kinds! {
    /// An index outside an array, a tuple or a string.
    BoundsError,
    /// An argument outside a function's domain (`sqrt(-1.0)`).
    DomainError,
    /// No method of a function for the arguments' types.
    MethodError,
    /// A name with no value.
    UndefVarError,
    /// An argument of a bad value (`ArgumentError("...")`).
    ArgumentError,
    /// Arrays of shapes that do not fit together.
    DimensionMismatch,
    /// A key a dictionary does not hold.
    KeyError,
    /// A conversion that would lose the value (`Int(2.5)`).
    InexactError,
    /// An integer division by zero.
    DivideError,
    /// An integer operation whose result does not fit.
    OverflowError,
    /// Calls nested deeper than the run allows.
    StackOverflowError,
    /// A slot or field left undefined.
    UndefRefError,
    /// A failed `@assert`.
    AssertionError,
    /// `error("...")`.
    ErrorException,
    /// A value of the wrong type (`typeassert`, a condition that is not a `Bool`).
    TypeError,
    /// A field a type does not have.
    FieldError,
    /// A string index inside a character.
    StringIndexError,
    /// A keyword argument without a default left out.
    UndefKeywordError,
}

impl ErrorKind {
    /// The kind of an error raised as `message`, Julia's one-line text (`BoundsError: ...`,
    /// `DomainError with -1.0: ...`): the engines make each error as its text, whose first
    /// word names its type; zy's own errors start `internal error`, `unsupported`,
    /// `InterruptException` or `OutOfMemoryError`. A message naming no type is `error`'s.
    pub fn of_message(message: &str) -> ErrorKind {
        if message.starts_with("internal error") {
            return ErrorKind::Internal;
        }
        if message.starts_with("unsupported") {
            return ErrorKind::Unsupported;
        }
        let end = message
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(message.len());
        match &message[..end] {
            "" => ErrorKind::ErrorException,
            "InterruptException" => ErrorKind::Interrupted,
            "OutOfMemoryError" => ErrorKind::OutOfMemory,
            name => ErrorKind::of_julia(name).unwrap_or_else(|| ErrorKind::Other(name.into())),
        }
    }

    /// Whether a `catch` takes the error: every exception Julia raises or the program throws,
    /// never zy's own stops (an operation outside its subset, its time and memory limits, an
    /// internal error), which a `catch` would hide.
    pub fn catchable(&self) -> bool {
        !matches!(
            self,
            ErrorKind::Unsupported
                | ErrorKind::Interrupted
                | ErrorKind::OutOfMemory
                | ErrorKind::Internal
        )
    }

    /// Whether the error is of the Julia type `ty` (a name, qualified or not) as `@test_throws
    /// T` asks: its own type, or `Exception` and `Any`, which every error a `catch` takes is
    /// taken for (a thrown value's supertypes are the program's, unknown here).
    pub fn is_a(&self, ty: &str) -> bool {
        let ty = ty.rsplit('.').next().unwrap_or(ty);
        self.catchable() && (matches!(ty, "Any" | "Exception") || self.name() == ty)
    }
}

#[cfg(test)]
mod tests {
    use super::ErrorKind;

    #[test]
    fn a_message_names_its_kind() {
        let kind = ErrorKind::of_message;
        assert_eq!(
            kind("BoundsError: attempt to access"),
            ErrorKind::BoundsError
        );
        assert_eq!(kind("DomainError with -1.0: sqrt"), ErrorKind::DomainError);
        assert_eq!(kind("StackOverflowError"), ErrorKind::StackOverflowError);
        assert_eq!(
            kind("SingularException(2)"),
            ErrorKind::Other("SingularException".into())
        );
        assert_eq!(
            kind("InterruptException: cancelled"),
            ErrorKind::Interrupted
        );
        assert_eq!(kind("OutOfMemoryError: the tape"), ErrorKind::OutOfMemory);
        assert_eq!(kind("unsupported: `%a`"), ErrorKind::Unsupported);
        assert_eq!(kind("internal error: no block"), ErrorKind::Internal);
        assert_eq!(kind("\"text\""), ErrorKind::ErrorException);
    }

    #[test]
    fn a_kind_is_its_type_and_exception() {
        assert!(ErrorKind::DomainError.is_a("Base.DomainError"));
        assert!(ErrorKind::DomainError.is_a("Exception"));
        assert!(!ErrorKind::DomainError.is_a("BoundsError"));
        assert!(ErrorKind::Thrown("MyError".into()).is_a("MyError"));
        assert!(!ErrorKind::Thrown("MyError".into()).is_a("DomainError"));
        assert!(!ErrorKind::Unsupported.is_a("Any"));
        assert!(!ErrorKind::Interrupted.is_a("InterruptException"));
    }
}

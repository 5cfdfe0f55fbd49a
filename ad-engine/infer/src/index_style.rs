//! Julia's `IndexStyle` of a type value naming one of the library's array types
//! (`IndexStyle(Vector{Float64})`): the trait of the type itself, as Base and LinearAlgebra
//! define it, read from the type's name. The values' own styles are the prelude's methods.

/// Is the library array type Julia names `name` indexed linearly (`IndexLinear()`, `Some(true)`)
/// or by Cartesian indices (`IndexCartesian()`, `Some(false)`)? `None` for a name that is not
/// one of the library's array types (`Float64`, a struct of the program).
pub(crate) fn linear(name: &str) -> Option<bool> {
    let (head, params) = match name.split_once('{') {
        Some((h, rest)) => (h, parts(rest.strip_suffix('}')?)),
        None => (name, Vec::new()),
    };
    match head.rsplit('.').next().unwrap_or(head) {
        "Array" | "Vector" | "Matrix" | "UnitRange" | "StepRange" | "StepRangeLen" | "LinRange"
        | "OneTo" | "BitArray" | "BitVector" | "BitMatrix" => Some(true),
        // A row of a vector (`AdjOrTransAbsVec`) is linear, the lazy adjoint of a matrix is not.
        "Adjoint" | "Transpose" => Some(params.get(1).is_some_and(|p| is_vector(p))),
        // `SubArray{T, N, P, I, L}`: `L` says whether the view is Julia's `FastSubArray`.
        "SubArray" => Some(params.get(4).is_some_and(|l| l == "true")),
        "Diagonal"
        | "Symmetric"
        | "Hermitian"
        | "UpperTriangular"
        | "LowerTriangular"
        | "UnitUpperTriangular"
        | "UnitLowerTriangular"
        | "Tridiagonal"
        | "SymTridiagonal"
        | "Bidiagonal"
        | "UpperHessenberg"
        | "PermutedDimsArray"
        | "ReshapedArray" => Some(false),
        _ => None,
    }
}

/// Does the type named `name` have one dimension (a vector, a range, a vector view)?
fn is_vector(name: &str) -> bool {
    let (head, params) = match name.split_once('{') {
        Some((h, rest)) => (h, parts(rest.strip_suffix('}').unwrap_or(rest))),
        None => (name, Vec::new()),
    };
    match head.rsplit('.').next().unwrap_or(head) {
        "Vector" | "UnitRange" | "StepRange" | "StepRangeLen" | "LinRange" | "OneTo"
        | "BitVector" => true,
        "Array" | "SubArray" => params.get(1).is_some_and(|n| n == "1"),
        _ => false,
    }
}

/// The parameters of a type's name, split at its top-level commas.
fn parts(text: &str) -> Vec<String> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '{' | '(' => depth += 1,
            '}' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(text[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(text[start..].trim().to_string());
    out
}

#[cfg(test)]
mod tests {
    use super::linear;

    #[test]
    fn styles_of_library_types() {
        assert_eq!(linear("Vector{Float64}"), Some(true));
        assert_eq!(linear("Matrix{Int64}"), Some(true));
        assert_eq!(linear("Array{Float64, 3}"), Some(true));
        assert_eq!(linear("UnitRange{Int64}"), Some(true));
        assert_eq!(linear("Base.OneTo{Int64}"), Some(true));
        assert_eq!(linear("Adjoint{Float64, Vector{Float64}}"), Some(true));
        assert_eq!(linear("Adjoint{Float64, Matrix{Float64}}"), Some(false));
        assert_eq!(linear("Transpose{Float64, Matrix{Float64}}"), Some(false));
        assert_eq!(linear("Diagonal{Float64, Vector{Float64}}"), Some(false));
        assert_eq!(
            linear("SubArray{Float64, 1, Vector{Float64}, Tuple{UnitRange{Int64}}, true}"),
            Some(true)
        );
        assert_eq!(
            linear("SubArray{Float64, 2, Matrix{Float64}, Tuple{UnitRange{Int64}, UnitRange{Int64}}, false}"),
            Some(false)
        );
        assert_eq!(linear("Float64"), None);
        assert_eq!(linear("Dict{Symbol, Float64}"), None);
    }
}

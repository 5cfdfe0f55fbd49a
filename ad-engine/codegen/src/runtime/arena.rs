//! Memory of one top-level call: every array, box and stack it allocates lives until the call
//! returns (its results are converted to interpreter values first), so nothing leaks.

/// Byte offsets of the [`ArrayObj`] fields that compiled code reads.
pub mod array_offset {
    /// Pointer to the elements (column-major).
    pub const DATA: i32 = 0;
    /// Number of elements.
    pub const LEN: i32 = 8;
    /// Rows (the length, for a vector).
    pub const ROWS: i32 = 16;
    /// Columns (1 for a vector).
    pub const COLS: i32 = 24;
}

/// Byte offsets of the [`StackObj`] fields that compiled code reads.
pub mod stack_offset {
    /// Pointer to the bytes.
    pub const DATA: i32 = 0;
    /// Bytes in use.
    pub const LEN: i32 = 8;
    /// Bytes available.
    pub const CAP: i32 = 16;
}

/// An array: a header followed (in the same allocation) by its elements.
#[repr(C)]
pub struct ArrayObj {
    /// See [`array_offset::DATA`].
    pub data: *mut u8,
    /// See [`array_offset::LEN`].
    pub len: i64,
    /// See [`array_offset::ROWS`].
    pub rows: i64,
    /// See [`array_offset::COLS`].
    pub cols: i64,
}

/// Words of an array header.
const HEADER_WORDS: usize = std::mem::size_of::<ArrayObj>() / 8;

/// An AD stack: a bump-pointer byte buffer of packed entries.
#[repr(C)]
pub struct StackObj {
    /// See [`stack_offset::DATA`].
    pub data: *mut u8,
    /// See [`stack_offset::LEN`].
    pub len: i64,
    /// See [`stack_offset::CAP`].
    pub cap: i64,
    buf: Vec<u64>,
}

impl StackObj {
    /// Make room for `need` more bytes (at least doubling, so pushes are amortised O(1)).
    pub fn grow(&mut self, need: usize) {
        let len = self.len.max(0) as usize;
        let want = (len + need).max(2 * self.buf.len() * 8).max(64);
        self.buf.resize(want.div_ceil(8), 0);
        self.data = self.buf.as_mut_ptr().cast();
        self.cap = (self.buf.len() * 8) as i64;
    }

    /// The bytes in use, oldest entry first.
    pub fn bytes(&self) -> &[u8] {
        let len = self.len.max(0) as usize;
        // SAFETY: `data` points into `buf`, which holds `cap >= len` bytes.
        unsafe { std::slice::from_raw_parts(self.buf.as_ptr().cast::<u8>(), len) }
    }
}

/// Owner of a call's allocations.
#[derive(Default)]
pub struct Arena {
    /// Bytes allocated so far (objects and stack buffers).
    bytes: usize,
    blocks: Vec<Box<[u64]>>,
    /// Boxed: compiled code holds their addresses while the vector grows.
    #[allow(clippy::vec_box)]
    stacks: Vec<Box<StackObj>>,
}

impl Arena {
    /// `n` zeroed words.
    pub fn alloc_words(&mut self, n: usize) -> *mut u64 {
        self.bytes = self.bytes.saturating_add(n.max(1) * 8);
        let mut block = vec![0u64; n.max(1)].into_boxed_slice();
        let p = block.as_mut_ptr();
        self.blocks.push(block);
        p
    }

    /// A zero-filled array of `rows × cols` elements of `elem_size` bytes.
    pub fn new_array(&mut self, rows: i64, cols: i64, elem_size: usize) -> *mut ArrayObj {
        let len = rows.saturating_mul(cols).max(0);
        let data_words = (len as usize).saturating_mul(elem_size).div_ceil(8);
        let p = self.alloc_words(HEADER_WORDS + data_words);
        let header = p.cast::<ArrayObj>();
        // SAFETY: `p` points to at least HEADER_WORDS words owned by the arena.
        unsafe {
            header.write(ArrayObj {
                data: p.add(HEADER_WORDS).cast(),
                len,
                rows,
                cols,
            });
        }
        header
    }

    /// Bytes allocated so far.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Count `n` more bytes (a stack buffer's growth).
    pub fn note(&mut self, n: usize) {
        self.bytes = self.bytes.saturating_add(n);
    }

    /// An empty stack.
    pub fn new_stack(&mut self) -> *mut StackObj {
        let mut s = Box::new(StackObj {
            data: std::ptr::null_mut(),
            len: 0,
            cap: 0,
            buf: Vec::new(),
        });
        s.data = s.buf.as_mut_ptr().cast();
        let p: *mut StackObj = &mut *s;
        self.stacks.push(s);
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_are_zeroed_and_stacks_grow_keeping_contents() {
        let mut arena = Arena::default();
        let a = arena.new_array(2, 3, 8);
        let a = unsafe { &*a };
        assert_eq!((a.len, a.rows, a.cols), (6, 2, 3));
        let elems = unsafe { std::slice::from_raw_parts(a.data.cast::<f64>(), 6) };
        assert_eq!(elems, &[0.0; 6]);
        let s = unsafe { &mut *arena.new_stack() };
        s.grow(8);
        unsafe { s.data.cast::<u64>().write(42) };
        s.len = 8;
        s.grow(1000);
        assert!(s.cap >= 1008);
        assert_eq!(&s.bytes()[..8], &42u64.to_le_bytes());
    }
}

//! Memory of one top-level call: every array, box and stack it allocates lives until the call
//! returns (its results are converted to interpreter values first), so nothing leaks.

use std::mem::MaybeUninit;

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
    /// Elements the storage at `DATA` has room for (`setlength!` grows into it).
    pub const CAP: i32 = 32;
    /// Null for a vector or matrix; for an array of N ≥ 3 dimensions a pointer to N + 1 words
    /// `[N, d₁, ..., d_N]` (then `ROWS` is d₁ and `COLS` the product of the others, so the
    /// elements are the column-major matrix `ROWS × COLS` as for a matrix).
    pub const SHAPE: i32 = 40;
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
    /// See [`array_offset::CAP`].
    pub cap: i64,
    /// See [`array_offset::SHAPE`].
    pub shape: *const i64,
}

impl ArrayObj {
    /// The sizes of an array of 3 or more dimensions (`None` for a vector or matrix).
    pub fn nd_dims(&self) -> Option<&[i64]> {
        if self.shape.is_null() {
            return None;
        }
        // SAFETY: a non-null shape points to `[N, d₁, ..., d_N]` in the arena of the call.
        unsafe {
            let n = (*self.shape).max(0) as usize;
            Some(std::slice::from_raw_parts(self.shape.add(1), n))
        }
    }

    /// Do `self` and `other` have the same dimensions (as arrays of the same rank)?
    pub fn same_shape(&self, other: &ArrayObj) -> bool {
        (self.rows, self.cols, self.len) == (other.rows, other.cols, other.len)
            && self.nd_dims() == other.nd_dims()
    }
}

/// Words of an array header.
pub const HEADER_WORDS: usize = std::mem::size_of::<ArrayObj>() / 8;

/// An AD stack: a bump-pointer byte buffer of packed entries.
#[repr(C)]
pub struct StackObj {
    /// See [`stack_offset::DATA`].
    pub data: *mut u8,
    /// See [`stack_offset::LEN`].
    pub len: i64,
    /// See [`stack_offset::CAP`].
    pub cap: i64,
    /// Uninitialised beyond `len` bytes (pushes write every byte before pops read it), so
    /// growing does not touch the new memory.
    buf: Vec<MaybeUninit<u64>>,
}

impl StackObj {
    /// Make room for `need` more bytes (at least doubling, so pushes are amortised O(1)).
    pub fn grow(&mut self, need: usize) {
        self.grow_within(need, usize::MAX);
    }

    /// [`StackObj::grow`], with the capacity kept at most `max` bytes (but never below what
    /// `need` more bytes take).
    pub fn grow_within(&mut self, need: usize, max: usize) {
        let len = self.len.max(0) as usize;
        let want = (2 * self.buf.len() * 8).max(64).min(max).max(len + need);
        let words = want.div_ceil(8);
        self.buf.reserve_exact(words.saturating_sub(self.buf.len()));
        // SAFETY: the capacity holds `words` elements, and `MaybeUninit` needs no initialising.
        unsafe { self.buf.set_len(words.max(self.buf.len())) };
        self.data = self.buf.as_mut_ptr().cast();
        self.cap = (self.buf.len() * 8) as i64;
    }

    /// The bytes in use, oldest entry first.
    pub fn bytes(&self) -> &[u8] {
        let len = self.len.max(0) as usize;
        // SAFETY: `data` points into `buf`, which holds `cap >= len` bytes, and the first
        // `len` were written by pushes.
        unsafe { std::slice::from_raw_parts(self.buf.as_ptr().cast::<u8>(), len) }
    }
}

/// Words in the first chunk of an arena; later chunks double, and an allocation larger than
/// that gets a chunk of its own size.
const FIRST_CHUNK_WORDS: usize = 1 << 12;

/// Owner of a call's allocations: a bump allocator over chunks that are kept when the arena is
/// [`reset`](Arena::reset_to), so a call repeated on one arena allocates from warm memory.
#[derive(Default)]
pub struct Arena {
    /// Bytes allocated so far (objects and stack buffers).
    bytes: usize,
    chunks: Vec<Box<[u64]>>,
    /// The chunk being filled.
    cur: usize,
    /// Words used in `chunks[cur]`.
    used: usize,
    /// Boxed: compiled code holds their addresses while the vector grows.
    #[allow(clippy::vec_box)]
    stacks: Vec<Box<StackObj>>,
    /// Stacks handed out; those past it are kept for reuse.
    live_stacks: usize,
    /// Values compiled code refers to by address (caught exceptions), kept until the call
    /// ends. Boxed: compiled code holds their addresses while the vector grows.
    #[allow(clippy::vec_box)]
    held: Vec<Box<zy_interp::Value>>,
}

/// A point in an arena's allocations to return to (see [`Arena::reset_to`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct ArenaMark {
    bytes: usize,
    cur: usize,
    used: usize,
    live_stacks: usize,
}

impl Arena {
    /// `n` zeroed words.
    pub fn alloc_words(&mut self, n: usize) -> *mut u64 {
        let p = self.alloc_words_uninit(n);
        // SAFETY: `p` points to max(n, 1) words owned by the arena.
        unsafe { std::ptr::write_bytes(p, 0, n.max(1)) };
        p
    }

    /// `n` words whose contents are whatever an earlier allocation left (the caller writes
    /// them all before anything reads them).
    pub fn alloc_words_uninit(&mut self, n: usize) -> *mut u64 {
        let n = n.max(1);
        self.bytes = self.bytes.saturating_add(n * 8);
        while self.chunks.get(self.cur).map_or(0, |c| c.len()) < self.used + n {
            let next = self.cur + 1;
            if self.chunks.is_empty() || self.chunks.get(next).is_some_and(|c| c.len() < n) {
                // No chunk, or the next one is too small: put a big enough one in its place.
                let last = self.chunks.last().map_or(0, |c| c.len());
                let words = n.max(2 * last).max(FIRST_CHUNK_WORDS);
                let at = if self.chunks.is_empty() { 0 } else { next };
                self.chunks.insert(at, vec![0u64; words].into_boxed_slice());
                self.cur = at;
            } else if next < self.chunks.len() {
                self.cur = next;
            } else {
                let words = n.max(2 * self.chunks[self.cur].len());
                self.chunks.push(vec![0u64; words].into_boxed_slice());
                self.cur = next;
            }
            self.used = 0;
        }
        let p = self.chunks[self.cur][self.used..].as_mut_ptr();
        self.used += n;
        p
    }

    /// A zero-filled array of `rows × cols` elements of `elem_size` bytes.
    pub fn new_array(&mut self, rows: i64, cols: i64, elem_size: usize) -> *mut ArrayObj {
        let a = self.new_array_uninit(rows, cols, elem_size);
        // SAFETY: the header was just written; its elements are owned by the arena.
        unsafe {
            let bytes = ((*a).len as usize).saturating_mul(elem_size);
            std::ptr::write_bytes((*a).data, 0, bytes);
        }
        a
    }

    /// An array of `rows × cols` elements of `elem_size` bytes that the caller fills entirely
    /// before anything reads it.
    pub fn new_array_uninit(&mut self, rows: i64, cols: i64, elem_size: usize) -> *mut ArrayObj {
        let len = rows.saturating_mul(cols).max(0);
        let data_words = (len as usize).saturating_mul(elem_size).div_ceil(8);
        let p = self.alloc_words_uninit(HEADER_WORDS.saturating_add(data_words));
        let header = p.cast::<ArrayObj>();
        // SAFETY: `p` points to at least HEADER_WORDS words owned by the arena.
        unsafe {
            header.write(ArrayObj {
                data: p.add(HEADER_WORDS).cast(),
                len,
                rows,
                cols,
                cap: len,
                shape: std::ptr::null(),
            });
        }
        header
    }

    /// A zero-filled array of the sizes `dims` (3 or more), elements of `elem_size` bytes.
    pub fn new_array_nd(&mut self, dims: &[i64], elem_size: usize) -> *mut ArrayObj {
        let rows = dims.first().copied().unwrap_or(1);
        let cols = dims.iter().skip(1).fold(1i64, |p, &d| p.saturating_mul(d));
        let a = self.new_array(rows, cols, elem_size);
        let shape = self.alloc_words(dims.len() + 1).cast::<i64>();
        // SAFETY: `shape` holds `dims.len() + 1` fresh words; `a` is the fresh header.
        unsafe {
            shape.write(dims.len() as i64);
            std::ptr::copy_nonoverlapping(dims.as_ptr(), shape.add(1), dims.len());
            (*a).shape = shape;
        }
        a
    }

    /// A fresh array (zero-filled) with the dimensions of `like`, elements of `elem_size`
    /// bytes; its shape words are shared with `like` (they never change).
    pub fn new_array_like(&mut self, like: &ArrayObj, elem_size: usize) -> *mut ArrayObj {
        let a = self.new_array(like.rows, like.cols, elem_size);
        // SAFETY: `a` is the fresh header.
        unsafe { (*a).shape = like.shape };
        a
    }

    /// Bytes allocated so far.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Count `n` more bytes (a stack buffer's growth).
    pub fn note(&mut self, n: usize) {
        self.bytes = self.bytes.saturating_add(n);
    }

    /// An empty stack (reusing the buffer of one freed by a reset).
    pub fn new_stack(&mut self) -> *mut StackObj {
        if self.live_stacks == self.stacks.len() {
            self.stacks.push(Box::new(StackObj {
                data: std::ptr::null_mut(),
                len: 0,
                cap: 0,
                buf: Vec::new(),
            }));
        }
        let s = &mut self.stacks[self.live_stacks];
        self.live_stacks += 1;
        s.data = s.buf.as_mut_ptr().cast();
        s.len = 0;
        s.cap = (s.buf.len() * 8) as i64;
        self.bytes = self.bytes.saturating_add(s.buf.len() * 8);
        &mut **s
    }

    /// How many stacks are handed out (see [`Arena::release_stacks`]).
    pub fn stack_mark(&self) -> usize {
        self.live_stacks
    }

    /// The stacks handed out since [`Arena::stack_mark`] returned `mark` are dead: later
    /// [`Arena::new_stack`]s reuse them and their buffers (a checkpointed call's recomputed
    /// tapes, one chunk after another in the same memory). Their buffers stop counting
    /// towards [`Arena::bytes`] until reused.
    pub fn release_stacks(&mut self, mark: usize) {
        if mark >= self.live_stacks {
            return;
        }
        let freed: usize = self.stacks[mark..self.live_stacks]
            .iter()
            .map(|s| s.buf.len() * 8)
            .sum();
        self.bytes = self.bytes.saturating_sub(freed);
        self.live_stacks = mark;
    }

    /// Where the arena stands now.
    pub fn mark(&self) -> ArenaMark {
        ArenaMark {
            bytes: self.bytes,
            cur: self.cur,
            used: self.used,
            live_stacks: self.live_stacks,
        }
    }

    /// Keeps `v` until the call ends and gives its address, which compiled code holds for a
    /// value it does not look into (a caught exception, [`crate::layout`]'s `Exception` slot).
    pub fn hold(&mut self, v: zy_interp::Value) -> *const zy_interp::Value {
        self.held.push(Box::new(v));
        self.held
            .last()
            .map_or(std::ptr::null(), |b| &**b as *const zy_interp::Value)
    }

    /// Free everything allocated since `mark` (keeping the memory for later allocations).
    /// Pointers to objects allocated since then must no longer be used.
    pub fn reset_to(&mut self, mark: ArenaMark) {
        self.bytes = mark.bytes;
        self.cur = mark.cur;
        self.used = mark.used;
        self.live_stacks = mark.live_stacks;
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

    #[test]
    fn a_reset_reuses_memory_and_zeroes_it_again() {
        let mut arena = Arena::default();
        let kept = arena.alloc_words(3);
        let mark = arena.mark();
        let small = arena.alloc_words(10);
        let big = arena.alloc_words(FIRST_CHUNK_WORDS * 3);
        unsafe {
            *small = 7;
            *big.add(5) = 9;
            *kept = 1;
        }
        let s = unsafe { &mut *arena.new_stack() };
        s.grow(100);
        s.len = 16;
        let bytes = arena.bytes();
        arena.reset_to(mark);
        assert!(arena.bytes() < bytes);
        assert_eq!(arena.alloc_words(10), small);
        assert_eq!(unsafe { *small }, 0);
        assert_eq!(arena.alloc_words(FIRST_CHUNK_WORDS * 3), big);
        assert_eq!(unsafe { *big.add(5) }, 0);
        assert_eq!(unsafe { *kept }, 1);
        // The stack comes back empty, with its buffer.
        let again = unsafe { &mut *arena.new_stack() };
        assert_eq!((again.len, again.cap >= 100), (0, true));
    }

    #[test]
    fn allocations_never_overlap() {
        let mut arena = Arena::default();
        let mut blocks: Vec<(usize, usize)> = Vec::new();
        for n in [1, 4096, 3, 9000, 4095, 1, 20000, 7] {
            let p = arena.alloc_words(n) as usize;
            blocks.push((p, p + n * 8));
        }
        for (i, a) in blocks.iter().enumerate() {
            for b in &blocks[i + 1..] {
                assert!(a.1 <= b.0 || b.1 <= a.0, "{a:?} overlaps {b:?}");
            }
        }
    }

    #[test]
    fn released_stacks_are_reused_with_their_buffers() {
        let mut arena = Arena::default();
        let kept = arena.new_stack();
        let mark = arena.stack_mark();
        let a = arena.new_stack();
        // SAFETY: `a` is a live stack of the arena.
        let cap = unsafe {
            (*a).grow(1024);
            (*a).cap as usize
        };
        // The runtime counts a stack's growth, as `zy_rt_stack_grow` does.
        arena.note(cap);
        let before = arena.bytes();
        arena.release_stacks(mark);
        assert_eq!(arena.bytes(), before - cap);
        let b = arena.new_stack();
        assert_eq!(a, b, "the released stack is handed out again");
        // SAFETY: `b` and `kept` are live stacks of the arena.
        unsafe {
            assert_eq!((*b).len, 0);
            assert_eq!((*b).cap as usize, cap, "its buffer is kept");
            assert_ne!(kept, b);
        }
        assert_eq!(arena.bytes(), before);
        // A mark past the stacks handed out releases nothing.
        arena.release_stacks(10);
        assert_eq!(arena.stack_mark(), 2);
    }
}

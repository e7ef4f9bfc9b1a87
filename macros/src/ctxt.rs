//! Errors collected while a macro reads its input, so every mistake of an item is reported at
//! once instead of one per compilation. A context must be checked before it is dropped.

use quote::ToTokens;
use std::cell::RefCell;
use std::fmt::Display;

/// The errors found so far.
pub struct Ctxt {
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    /// An empty context.
    pub fn new() -> Self {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }

    /// An error at the tokens of `obj`.
    pub fn error_spanned_by<A: ToTokens, T: Display>(&self, obj: A, message: T) {
        self.syn_error(syn::Error::new_spanned(obj.into_token_stream(), message));
    }

    /// An error as `syn` gives it.
    pub fn syn_error(&self, error: syn::Error) {
        if let Some(errors) = self.errors.borrow_mut().as_mut() {
            errors.push(error);
        }
    }

    /// Every error found, as one (each keeps its span), or none.
    pub fn check(self) -> syn::Result<()> {
        let errors = self.errors.borrow_mut().take().unwrap_or_default();
        match crate::attrs::combine(errors) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        // A context dropped unchecked would lose its errors: a bug in the macro, not the input.
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("a macro context was dropped without checking its errors");
        }
    }
}

//! English stemming with a memory: the game's vocabulary is small and repeats endlessly
//! ("arrives", "hits", "goblin"), so each word is stemmed once and looked up after that.
//! Stemming was the largest single cost of indexing under load (see the recording
//! issue's closing note); the result is the same as tantivy's `en_stem`.

use rustc_hash::FxHashMap as HashMap;

use tantivy::tokenizer::{LowerCaser, RemoveLongFilter, SimpleTokenizer, TextAnalyzer, Token, TokenFilter, TokenStream, Tokenizer};

/// The analyzer's name in the index schema.
pub const ANALYZER: &str = "pawns_en";
/// Words remembered before the memory starts over (a few MB at most).
const MAX_WORDS: usize = 50_000;

/// Simple tokens, lower-cased, long ones dropped, stemmed (English) with a cache.
pub fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(SimpleTokenizer::default()).filter(RemoveLongFilter::limit(40)).filter(LowerCaser).filter(CachedStemmer).build()
}

#[derive(Clone, Copy)]
pub struct CachedStemmer;

impl TokenFilter for CachedStemmer {
    type Tokenizer<T: Tokenizer> = CachedStemmerFilter<T>;

    fn transform<T: Tokenizer>(self, inner: T) -> CachedStemmerFilter<T> {
        CachedStemmerFilter { inner, cache: HashMap::default() }
    }
}

#[derive(Clone)]
pub struct CachedStemmerFilter<T> {
    inner: T,
    cache: HashMap<String, String>,
}

impl<T: Tokenizer> Tokenizer for CachedStemmerFilter<T> {
    type TokenStream<'a> = CachedStemStream<'a, T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        if self.cache.len() > MAX_WORDS {
            self.cache.clear();
        }
        CachedStemStream { tail: self.inner.token_stream(text), cache: &mut self.cache }
    }
}

pub struct CachedStemStream<'a, T> {
    tail: T,
    cache: &'a mut HashMap<String, String>,
}

impl<T: TokenStream> TokenStream for CachedStemStream<'_, T> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        let token = self.tail.token_mut();
        match self.cache.get(&token.text) {
            Some(stem) => {
                token.text.clear();
                token.text.push_str(stem);
            }
            None => {
                let stem = stem_once(&token.text);
                self.cache.insert(std::mem::take(&mut token.text), stem.clone());
                token.text = stem;
            }
        }
        true
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}

/// One word through tantivy's own English stemmer.
fn stem_once(word: &str) -> String {
    let mut stemmer = TextAnalyzer::builder(tantivy::tokenizer::RawTokenizer::default())
        .filter(tantivy::tokenizer::Stemmer::new(tantivy::tokenizer::Language::English))
        .build();
    let mut stream = stemmer.token_stream(word);
    let mut out = word.to_string();
    stream.process(&mut |t| out = t.text.clone());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<String> {
        let mut a = analyzer();
        let mut s = a.token_stream(text);
        let mut out = Vec::new();
        s.process(&mut |t| out.push(t.text.clone()));
        out
    }

    #[test]
    fn stems_like_en_stem_and_remembers() {
        let mut reference = TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(RemoveLongFilter::limit(40))
            .filter(LowerCaser)
            .filter(tantivy::tokenizer::Stemmer::new(tantivy::tokenizer::Language::English))
            .build();
        let text = "You killed the Goblins! Goblins arrive, arriving; the goblin kills you. Running runners ran.";
        let mut want = Vec::new();
        reference.token_stream(text).process(&mut |t| want.push(t.text.clone()));
        assert_eq!(tokens(text), want);
        assert_eq!(tokens("killed goblins"), ["kill", "goblin"]);
        // The same analyzer twice over (the cache warm) gives the same tokens.
        let mut a = analyzer();
        for _ in 0..3 {
            let mut got = Vec::new();
            a.token_stream(text).process(&mut |t| got.push(t.text.clone()));
            assert_eq!(got, want);
        }
    }
}

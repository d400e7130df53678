//! A search's words, as asked of documents and of records.
//!
//! A document holds a command's records together, so it must be asked a query every
//! record it holds could answer: anything a record matches, its document matches. A
//! conjunction, a phrase or a word only ever gain from more records around them; an
//! exclusion (`-flee`, `NOT flee`) is the one part that can lose ("kill -flee" is true of
//! the `kill` even when the `flee` that followed is in the same document). So documents
//! are asked the query without its exclusions, and each record of the documents found is
//! then asked the whole query (`split`).

use tantivy::query::{AllQuery, Query, QueryParser};
use tantivy::query_grammar::{Occur, UserInputAst};

use super::index::SearchError;

/// The query's syntax tree, or `bad_query`.
pub fn parse(q: &str) -> Result<UserInputAst, SearchError> {
    tantivy::query_grammar::parse_query(q).map_err(|_| SearchError::BadQuery(format!("syntax error in {q:?}")))
}

/// The query documents are asked: `ast` without its exclusions (`None`: every document).
pub fn without_exclusions(ast: UserInputAst) -> Option<UserInputAst> {
    match ast {
        UserInputAst::Leaf(_) => Some(ast),
        UserInputAst::Boost(inner, b) => without_exclusions(*inner).map(|i| UserInputAst::Boost(Box::new(i), b)),
        UserInputAst::Clause(clauses) => {
            let mut kept = Vec::with_capacity(clauses.len());
            for (occur, sub) in clauses {
                match occur {
                    Some(Occur::MustNot) => {}
                    // A required part that asks nothing requires nothing.
                    Some(Occur::Must) => kept.extend(without_exclusions(sub).map(|s| (occur, s))),
                    // Either of the parts: one that asks nothing makes the whole ask nothing.
                    Some(Occur::Should) => match without_exclusions(sub) {
                        Some(s) => kept.push((occur, s)),
                        None => return None,
                    },
                    // The default: a conjunction (the parser is set so), as `Must`.
                    None => kept.extend(without_exclusions(sub).map(|s| (occur, s))),
                }
            }
            (!kept.is_empty()).then_some(UserInputAst::Clause(kept))
        }
    }
}

/// `ast` as a query over `parser`'s fields.
pub fn build(parser: &QueryParser, ast: Option<UserInputAst>) -> Result<Box<dyn Query>, SearchError> {
    match ast {
        None => Ok(Box::new(AllQuery)),
        Some(ast) => parser.build_query_from_user_input_ast(ast).map_err(SearchError::bad_query),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(q: &str) -> String {
        match without_exclusions(parse(q).unwrap()) {
            Some(ast) => format!("{ast:?}"),
            None => "ALL".into(),
        }
    }

    #[test]
    fn documents_are_asked_without_exclusions() {
        for q in ["kill -flee", "kill NOT flee", "kill AND (rat -flee)", "\"small goblin\" -flee"] {
            let asked = shown(q);
            assert!(!asked.contains("flee") && asked != "ALL", "{q}: {asked}");
        }
        assert_eq!(shown("-flee"), "ALL");
        // (The parser makes `-flee` an either-or side of its own: a side that asks
        // nothing, so the whole asks nothing — more documents, never fewer.)
        assert_eq!(shown("(rat OR -flee)"), "ALL");
        assert_eq!(shown("kill AND (-flee)"), "(+kill)", "a part that asks nothing requires nothing");
        // Without exclusions the query is untouched.
        assert_eq!(shown("kill AND (rat OR goblin)"), format!("{:?}", parse("kill AND (rat OR goblin)").unwrap()));
    }
}

//! A search's words, as asked of documents and of records.
//!
//! A document holds a command's records together, so it must be asked a query every
//! record it holds could answer: anything a record matches, its document matches. A
//! conjunction, a phrase or a word only ever gain from more records around them; an
//! exclusion (`-flee`, `NOT flee`) is the one part that can lose ("kill -flee" is true of
//! the `kill` even when the `flee` that followed is in the same document). So documents
//! are asked the query without its exclusions, and each record of the documents found is
//! then asked the whole query (`split`).
//!
//! Documents keep no word positions (they were a quarter of the index): a phrase is asked
//! of them as its words, all required — every document holding the phrase holds its
//! words — and the records, indexed with positions, are asked the phrase itself.

use tantivy::query::{AllQuery, Query, QueryParser};
use tantivy::query_grammar::{Delimiter, Occur, UserInputAst, UserInputLeaf, UserInputLiteral};
use tantivy::tokenizer::TextAnalyzer;

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

/// The query documents without word positions are asked: each phrase (a literal the
/// analyzer makes more than one word of, quoted or not) becomes its words, all required;
/// a phrase's prefix (`"small gob"*`) is left out.
pub fn without_phrases(ast: UserInputAst, analyzer: &mut TextAnalyzer) -> UserInputAst {
    match ast {
        UserInputAst::Leaf(leaf) => match *leaf {
            // Only the words' field: another (`kind:combat`) is matched whole.
            UserInputLeaf::Literal(lit) if lit.field_name.as_deref().is_none_or(|f| f == "words") => {
                let mut words: Vec<String> = Vec::new();
                analyzer.token_stream(&lit.phrase).process(&mut |t| words.push(lit.phrase[t.offset_from..t.offset_to].to_string()));
                if words.len() <= 1 && !lit.prefix {
                    return UserInputAst::Leaf(Box::new(UserInputLeaf::Literal(lit)));
                }
                if lit.prefix {
                    words.pop();
                }
                let each = words.into_iter().map(|w| {
                    let one = UserInputLiteral {
                        field_name: lit.field_name.clone(),
                        phrase: w,
                        delimiter: Delimiter::None,
                        slop: 0,
                        prefix: false,
                    };
                    (Some(Occur::Must), UserInputAst::Leaf(Box::new(UserInputLeaf::Literal(one))))
                });
                let all: Vec<_> = each.collect();
                if all.is_empty() {
                    UserInputAst::Leaf(Box::new(UserInputLeaf::All))
                } else {
                    UserInputAst::Clause(all)
                }
            }
            other => UserInputAst::Leaf(Box::new(other)),
        },
        UserInputAst::Boost(inner, b) => UserInputAst::Boost(Box::new(without_phrases(*inner, analyzer)), b),
        UserInputAst::Clause(clauses) => {
            UserInputAst::Clause(clauses.into_iter().map(|(o, c)| (o, without_phrases(c, analyzer))).collect())
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

    fn unphrased(q: &str) -> String {
        format!("{:?}", without_phrases(parse(q).unwrap(), &mut crate::search::stem::analyzer()))
    }

    #[test]
    fn documents_are_asked_a_phrases_words() {
        assert_eq!(unphrased("\"small goblin\""), "(+small +goblin)");
        assert_eq!(unphrased("kill AND \"magic missile\"~2"), "(+kill +(+magic +missile))");
        assert_eq!(unphrased("magic-missile -flee"), "(*(+magic +missile) -flee)");
        assert_eq!(unphrased("\"Small  Goblins!\""), "(+Small +Goblins)", "the words as typed: the analyzer reads each as before");
        assert_eq!(unphrased("\"small gob\"*"), "(+small)", "a prefix is left out");
        assert_eq!(unphrased("goblin"), "goblin");
        assert_eq!(unphrased("words:\"small goblin\""), "(+\"words\":small +\"words\":goblin)");
        assert_eq!(unphrased("kind:\"a b\""), "\"kind\":\"a b\"", "another field's literal is left whole");
        assert_eq!(unphrased("\"goblin\""), "\"goblin\"");
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

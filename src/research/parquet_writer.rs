//! The Parquet tables' writer: columns buffered a row group at a time and written with
//! the `parquet` crate's column writers (no Arrow); a file under its temporary name until
//! complete. Kinds: INT64, DOUBLE, BOOLEAN, UTF-8 strings, TIMESTAMP(µs, UTC), and
//! LIST<UTF-8>.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parquet::basic::Compression;
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;

use super::parquet::ExportError;

/// Rows per row group.
const ROW_GROUP: usize = 65_536;

#[derive(Clone, Copy, PartialEq)]
pub enum Kind {
    I64,
    /// Unix µs as TIMESTAMP(MICROS, UTC).
    Ts,
    /// A list of strings: LIST<UTF-8>.
    List,
    F64,
    Bool,
    Str,
}

enum Data {
    I64(Vec<i64>),
    /// A list column's values and their repetition levels (the row's first 0, the rest 1).
    List(Vec<ByteArray>, Vec<i16>),
    F64(Vec<f64>),
    Bool(Vec<bool>),
    Str(Vec<ByteArray>),
}

struct Column {
    name: &'static str,
    optional: bool,
    data: Data,
    /// Definition levels (optional columns): 1 present, 0 null.
    def: Vec<i16>,
}

/// One table being written: its columns' buffers, flushed a row group at a time.
pub struct Table {
    path: PathBuf,
    /// The file, under its temporary name until the table is complete.
    new: pawns_storage::files::NewFile,
    writer: SerializedFileWriter<File>,
    cols: Vec<Column>,
    /// The column the next value goes to.
    at: usize,
    rows: usize,
    pub written: u64,
}

/// A value for the next column of the row.
pub enum V<'a> {
    I(Option<i64>),
    /// A list of strings (empty: an empty list).
    L(Vec<&'a str>),
    F(Option<f64>),
    B(Option<bool>),
    S(Option<&'a str>),
}

pub fn werr(path: &Path, e: impl std::fmt::Display) -> ExportError {
    ExportError::Write { path: path.display().to_string(), msg: e.to_string() }
}

impl Table {
    /// `schema`: (name, kind, optional) in order.
    pub fn create(dir: &Path, stem: &str, schema: &[(&'static str, Kind, bool)], force: bool) -> Result<Table, ExportError> {
        let path = dir.join(format!("{stem}.parquet"));
        let mut msg = format!("message {stem} {{\n");
        for (name, kind, optional) in schema {
            let rep = if *optional { "OPTIONAL" } else { "REQUIRED" };
            let (ty, ann) = match kind {
                Kind::I64 => ("INT64", ""),
                Kind::Ts => ("INT64", " (TIMESTAMP(MICROS,true))"),
                Kind::F64 => ("DOUBLE", ""),
                Kind::Bool => ("BOOLEAN", ""),
                Kind::Str => ("BYTE_ARRAY", " (UTF8)"),
                Kind::List => {
                    // The standard three-level list: a required list of required strings.
                    msg.push_str(&format!("  REQUIRED group {name} (LIST) {{\n    REPEATED group list {{\n      REQUIRED BYTE_ARRAY element (UTF8);\n    }}\n  }}\n"));
                    continue;
                }
            };
            msg.push_str(&format!("  {rep} {ty} {name}{ann};\n"));
        }
        msg.push('}');
        let schema_t = Arc::new(parquet::schema::parser::parse_message_type(&msg).map_err(|e| werr(&path, e))?);
        let props = Arc::new(WriterProperties::builder().set_compression(Compression::SNAPPY).build());
        let mut new = pawns_storage::files::create(&path, force)?;
        let file = new.take_file().ok_or_else(|| werr(&path, "the file was not open"))?;
        let writer = SerializedFileWriter::new(file, schema_t, props).map_err(|e| werr(&path, e))?;
        let cols = schema
            .iter()
            .map(|(name, kind, optional)| Column {
                name,
                optional: *optional,
                data: match kind {
                    Kind::I64 | Kind::Ts => Data::I64(Vec::new()),
                    Kind::List => Data::List(Vec::new(), Vec::new()),
                    Kind::F64 => Data::F64(Vec::new()),
                    Kind::Bool => Data::Bool(Vec::new()),
                    Kind::Str => Data::Str(Vec::new()),
                },
                def: Vec::new(),
            })
            .collect();
        Ok(Table { path, new, writer, cols, at: 0, rows: 0, written: 0 })
    }

    /// Adds one row, its values in schema order.
    pub fn row(&mut self, values: &[V<'_>]) -> Result<(), ExportError> {
        debug_assert_eq!(values.len(), self.cols.len());
        for v in values {
            let c = &mut self.cols[self.at];
            let present = match (v, &mut c.data) {
                (V::I(x), Data::I64(d)) => x.map(|x| d.push(x)).is_some(),
                (V::F(x), Data::F64(d)) => x.map(|x| d.push(x)).is_some(),
                (V::B(x), Data::Bool(d)) => x.map(|x| d.push(x)).is_some(),
                (V::S(x), Data::Str(d)) => x.map(|x| d.push(ByteArray::from(x))).is_some(),
                (V::L(xs), Data::List(d, rep)) => {
                    // An empty list is one level entry with no value (definition 0).
                    if xs.is_empty() {
                        rep.push(0);
                        c.def.push(0);
                    }
                    for (i, x) in xs.iter().enumerate() {
                        d.push(ByteArray::from(*x));
                        rep.push(i16::from(i > 0));
                        c.def.push(1);
                    }
                    self.at += 1;
                    continue;
                }
                _ => return Err(werr(&self.path, format!("column {} got a value of another type", c.name))),
            };
            if c.optional {
                c.def.push(i16::from(present));
            } else if !present {
                return Err(werr(&self.path, format!("column {} is required", c.name)));
            }
            self.at += 1;
        }
        self.at = 0;
        self.rows += 1;
        if self.rows >= ROW_GROUP {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), ExportError> {
        if self.rows == 0 {
            return Ok(());
        }
        let path = self.path.clone();
        let mut rg = self.writer.next_row_group().map_err(|e| werr(&path, e))?;
        for c in &mut self.cols {
            let mut w = rg.next_column().map_err(|e| werr(&path, e))?.ok_or_else(|| werr(&path, "fewer columns than the schema"))?;
            let def = c.optional.then_some(c.def.as_slice());
            let r = match &mut c.data {
                Data::List(d, rep) => w.typed::<ByteArrayType>().write_batch(d, Some(&c.def), Some(rep)),
                Data::I64(d) => w.typed::<Int64Type>().write_batch(d, def, None),
                Data::F64(d) => w.typed::<DoubleType>().write_batch(d, def, None),
                Data::Bool(d) => w.typed::<BoolType>().write_batch(d, def, None),
                Data::Str(d) => w.typed::<ByteArrayType>().write_batch(d, def, None),
            };
            r.map_err(|e| werr(&path, e))?;
            w.close().map_err(|e| werr(&path, e))?;
            match &mut c.data {
                Data::List(d, rep) => {
                    d.clear();
                    rep.clear();
                }
                Data::I64(d) => d.clear(),
                Data::F64(d) => d.clear(),
                Data::Bool(d) => d.clear(),
                Data::Str(d) => d.clear(),
            }
            c.def.clear();
        }
        rg.close().map_err(|e| werr(&path, e))?;
        self.written += self.rows as u64;
        self.rows = 0;
        Ok(())
    }

    pub fn finish(mut self) -> Result<(PathBuf, u64), ExportError> {
        self.flush()?;
        let path = self.path.clone();
        self.writer.close().map_err(|e| werr(&path, e))?;
        self.new.commit()?;
        Ok((path, self.written))
    }
}

//! A run's tables as Parquet files, written by the engine so that the Python front needs neither
//! pyarrow nor pandas to save a run.
//!
//! Each column is written with the Arrow type its declaration in [`aqmlab_sim::schema`] gives:
//! `f64` as float64, `i64` as int64, `bool` as boolean and `cat` as a dictionary of strings with
//! 32-bit indices (pandas reads it back as a categorical). The Arrow schema travels in the file's
//! `ARROW:schema` metadata, beside the caller's key/value pairs (the run's identity), so that any
//! Arrow reader gets the same types back. Strings are dictionary-encoded, integers delta-encoded
//! (`INTEGERS`) and floats byte-stream-split (`FLOATS`); pages are zstd-compressed, except in
//! tables shorter than [`COMPRESSED_FROM_ROWS`]. The bytes depend only on the columns and the
//! metadata: the same run gives the same file.
//!
//! Format: Apache Parquet (<https://parquet.apache.org/docs/file-format/>), written by the `parquet`
//! crate's `ArrowWriter`.

use aqmlab_sim::report::Strings;
use aqmlab_sim::schema::{self, ColumnType};
use aqmlab_sim::Column;
use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, BooleanArray, DictionaryArray, Float64Array, Int32Array, Int64Array, RecordBatch,
    RecordBatchOptions, StringArray,
};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Encoding, ZstdLevel};
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;
use std::collections::HashMap;
use std::sync::Arc;

/// The zstd level of every page: 1, zstd's fastest ordinary level, which writes faster than its
/// default 3 for slightly larger files (measured on a 90-minute Christiansen run's tables:
/// docs/performance.md, "The user's path").
const ZSTD_LEVEL: i32 = 1;

/// The encoding of integer columns: deltas between neighbours, bit-packed. A table's integers are
/// mostly counters, indices and ids that change little from row to row, which this stores in a
/// few bits each where the plain encoding takes eight bytes and leaves zstd to find the pattern.
/// On the 10,000-second, 10-flow dumbbell (`aqmlab bench`'s `tcp-10-newreno`) it took the queue
/// table from 949 KB to 547 KB, and the writing of all its tables from 39–42 to 33–34 ms
/// (docs/performance.md, "Parquet encodings").
const INTEGERS: Encoding = Encoding::DELTA_BINARY_PACKED;

/// The encoding of float columns: the values' bytes split into eight streams (all first bytes,
/// then all second bytes, …), which zstd compresses far better than whole values whose low bytes
/// vary: times and means that change slowly share their high bytes. With [`INTEGERS`], the same
/// dumbbell's queue table shrank to 141 KB. A column whose values repeat whole compresses better
/// plain (Christiansen's queue means: twice the bytes), a cost taken for one rule per type.
/// Uncompressed, it changes nothing but the order of the bytes.
const FLOATS: Encoding = Encoding::BYTE_STREAM_SPLIT;

/// Tables of fewer rows are written uncompressed. The `parquet` crate's zstd codec sets up a
/// compression and a decompression context for every column, about 0.03 ms together: more than
/// the pages of a short column take to write, for a few hundred bytes saved per column. On a
/// 1-second run of 100 flows (tables of 100–150 rows, 45 columns in all), writing its six tables
/// took 2.6 ms compressed and 0.5 ms not (docs/performance.md, "Short runs in a sweep").
pub const COMPRESSED_FROM_ROWS: usize = 512;

/// Why a table could not be written: it does not match the schema, or the writer failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableError(pub String);

impl std::fmt::Display for TableError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TableError {}

/// The Arrow type of a declared column type.
fn arrow_type(ty: ColumnType) -> DataType {
    match ty {
        ColumnType::F64 => DataType::Float64,
        ColumnType::I64 => DataType::Int64,
        ColumnType::Bool => DataType::Boolean,
        ColumnType::Cat => {
            DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))
        }
    }
}

/// A column as an Arrow array, checked against its declared type.
fn arrow_array(
    table: &str,
    name: &str,
    ty: ColumnType,
    column: &Column,
) -> Result<ArrayRef, TableError> {
    let array: ArrayRef = match (ty, column) {
        (ColumnType::F64, Column::F64(v)) => Arc::new(Float64Array::from(v.clone())),
        (ColumnType::I64, Column::I64(v)) => Arc::new(Int64Array::from(v.clone())),
        (ColumnType::Bool, Column::Bool(v)) => Arc::new(BooleanArray::from(v.clone())),
        (ColumnType::Cat, Column::Str(v)) => Arc::new(dictionary(v)?),
        _ => {
            return Err(TableError(format!(
                "{table}.{name} is declared {} but was given other values",
                type_name(ty)
            )))
        }
    };
    Ok(array)
}

/// A string column as Arrow's dictionary: the labels once, an index per row.
fn dictionary(strings: &Strings) -> Result<DictionaryArray<Int32Type>, TableError> {
    let codes = strings
        .codes
        .iter()
        .map(|&c| {
            i32::try_from(c).map_err(|_| TableError(format!("category index {c} is too large")))
        })
        .collect::<Result<Vec<i32>, _>>()?;
    let labels = StringArray::from_iter_values(strings.labels.iter());
    DictionaryArray::try_new(Int32Array::from(codes), Arc::new(labels))
        .map_err(|e| TableError(format!("a string column: {e}")))
}

fn type_name(ty: ColumnType) -> &'static str {
    match ty {
        ColumnType::F64 => "f64",
        ColumnType::I64 => "i64",
        ColumnType::Bool => "bool",
        ColumnType::Cat => "cat",
    }
}

/// Write table `table` — the given columns, in the given order, each one the schema declares for
/// that table — as a Parquet file with `metadata` as its key/value metadata. A table or column
/// the schema does not know, a column of another type than declared, or columns of different
/// lengths are errors.
pub fn write(
    table: &str,
    columns: &[(&str, &Column)],
    metadata: &[(&str, &str)],
) -> Result<Vec<u8>, TableError> {
    write_table(table, None, 1, columns, metadata)
}

/// The first column of a pack's tables: the run of each row, its position in the pack's seeds.
pub const RUN_INDEX: &str = "run_index";

/// Write table `table` of a pack (the tables of `runs` runs of one scenario, stacked:
/// `aqmlab.store`) as [`write`] does, with [`RUN_INDEX`] (int64), the run of each row, as its first
/// column. It is compressed as each run's table alone would be: when the pack has at least
/// [`COMPRESSED_FROM_ROWS`] rows a run on average. (Stacked short tables would be long enough to
/// compress, but the codec's set-up per column, not the bytes saved, would then be most of the
/// time a short run's files take to write.)
pub fn write_pack(
    table: &str,
    run_index: &[i64],
    runs: usize,
    columns: &[(&str, &Column)],
    metadata: &[(&str, &str)],
) -> Result<Vec<u8>, TableError> {
    write_table(table, Some(run_index), runs.max(1), columns, metadata)
}

fn write_table(
    table: &str,
    run_index: Option<&[i64]>,
    runs: usize,
    columns: &[(&str, &Column)],
    metadata: &[(&str, &str)],
) -> Result<Vec<u8>, TableError> {
    let spec = schema::table(table)
        .ok_or_else(|| TableError(format!("no table {table:?} in the engine's schema")))?;
    let rows = match (run_index, columns.first()) {
        (Some(runs), _) => runs.len(),
        (None, first) => first.map_or(0, |(_, c)| c.len()),
    };
    let mut fields = Vec::with_capacity(columns.len() + 1);
    let mut arrays: Vec<ArrayRef> = Vec::with_capacity(columns.len() + 1);
    if let Some(runs) = run_index {
        fields.push(Field::new(RUN_INDEX, DataType::Int64, true));
        arrays.push(Arc::new(Int64Array::from(runs.to_vec())));
    }
    for (name, column) in columns {
        let declared = spec
            .columns
            .iter()
            .find(|c| c.name == *name)
            .ok_or_else(|| TableError(format!("{table}.{name} is not in the engine's schema")))?;
        if column.len() != rows {
            let first = if run_index.is_some() {
                RUN_INDEX
            } else {
                columns[0].0
            };
            return Err(TableError(format!(
                "{table}.{name} has {} rows where {first} has {rows}",
                column.len(),
            )));
        }
        fields.push(Field::new(*name, arrow_type(declared.ty), true));
        arrays.push(arrow_array(table, name, declared.ty, column)?);
    }
    let metadata: HashMap<String, String> = metadata
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let schema = Arc::new(Schema::new_with_metadata(fields, metadata));
    let batch = RecordBatch::try_new_with_options(
        schema.clone(),
        arrays,
        &RecordBatchOptions::new().with_row_count(Some(rows)),
    )
    .map_err(|e| TableError(format!("{table}: {e}")))?;
    let level = ZstdLevel::try_new(ZSTD_LEVEL).expect("a valid zstd level");
    let compression = if rows < COMPRESSED_FROM_ROWS.saturating_mul(runs) {
        Compression::UNCOMPRESSED
    } else {
        Compression::ZSTD(level)
    };
    let mut properties = WriterProperties::builder()
        .set_compression(compression)
        .set_dictionary_enabled(false);
    if run_index.is_some() {
        properties = properties.set_column_encoding(ColumnPath::from(RUN_INDEX), INTEGERS);
    }
    // Dictionary pages for the string columns only: most numbers rarely repeat (times, sizes), and
    // hashing each one for a dictionary that is then dropped cost time for no smaller file.
    for (name, column) in columns {
        let path = ColumnPath::from(*name);
        properties = match column {
            Column::Str(_) => properties.set_column_dictionary_enabled(path, true),
            Column::I64(_) => properties.set_column_encoding(path, INTEGERS),
            Column::F64(_) => properties.set_column_encoding(path, FLOATS),
            Column::Bool(_) => properties,
        };
    }
    let properties = properties.build();
    let mut bytes = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut bytes, schema, Some(properties))
        .map_err(|e| TableError(format!("{table}: {e}")))?;
    writer
        .write(&batch)
        .map_err(|e| TableError(format!("{table}: {e}")))?;
    writer
        .close()
        .map_err(|e| TableError(format!("{table}: {e}")))?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::cast::AsArray;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    fn read(bytes: Vec<u8>) -> (Arc<Schema>, Vec<RecordBatch>) {
        let builder = ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::from(bytes)).unwrap();
        let schema = builder.schema().clone();
        let batches = builder
            .build()
            .unwrap()
            .collect::<Result<Vec<_>, _>>()
            .unwrap();
        (schema, batches)
    }

    fn link_columns() -> Vec<(&'static str, Column)> {
        vec![
            ("t_s", Column::F64(vec![0.0, 0.0, 0.1])),
            (
                "direction",
                Column::Str(["forward", "reverse", "forward"].into_iter().collect()),
            ),
            ("bytes", Column::I64(vec![1500, 40, 3000])),
        ]
    }

    #[test]
    fn a_table_reads_back_with_its_declared_types_values_and_metadata() {
        let columns = link_columns();
        let refs: Vec<(&str, &Column)> = columns.iter().map(|(n, c)| (*n, c)).collect();
        let bytes = write("link", &refs, &[("aqmlab.seed", "7")]).unwrap();
        let (schema, batches) = read(bytes);
        assert_eq!(schema.metadata()["aqmlab.seed"], "7");
        let types: Vec<&DataType> = schema.fields().iter().map(|f| f.data_type()).collect();
        assert_eq!(types[0], &DataType::Float64);
        assert_eq!(types[1], &arrow_type(ColumnType::Cat));
        assert_eq!(types[2], &DataType::Int64);
        let batch = &batches[0];
        let t = batch
            .column(0)
            .as_primitive::<arrow_array::types::Float64Type>();
        assert_eq!(t.values().to_vec(), vec![0.0, 0.0, 0.1]);
        let direction = batch.column(1).as_dictionary::<Int32Type>();
        let labels = direction.values().as_string::<i32>();
        let rows: Vec<&str> = direction
            .keys()
            .values()
            .iter()
            .map(|&k| labels.value(k as usize))
            .collect();
        assert_eq!(rows, vec!["forward", "reverse", "forward"]);
    }

    #[test]
    fn a_packs_table_starts_with_the_run_of_each_row() {
        let columns = link_columns();
        let refs: Vec<(&str, &Column)> = columns.iter().map(|(n, c)| (*n, c)).collect();
        let bytes = write_pack("link", &[0, 0, 1], 2, &refs, &[]).unwrap();
        let (schema, batches) = read(bytes);
        assert_eq!(schema.field(0).name(), RUN_INDEX);
        assert_eq!(schema.field(0).data_type(), &DataType::Int64);
        assert_eq!(schema.field(1).name(), "t_s");
        let runs = batches[0]
            .column(0)
            .as_primitive::<arrow_array::types::Int64Type>();
        assert_eq!(runs.values().to_vec(), vec![0, 0, 1]);
        let short = write_pack("link", &[0, 1], 2, &refs, &[]).unwrap_err();
        assert_eq!(short.0, "link.t_s has 3 rows where run_index has 2");
    }

    #[test]
    fn the_same_table_gives_the_same_bytes() {
        let columns = link_columns();
        let refs: Vec<(&str, &Column)> = columns.iter().map(|(n, c)| (*n, c)).collect();
        assert_eq!(
            write("link", &refs, &[]).unwrap(),
            write("link", &refs, &[]).unwrap()
        );
    }

    #[test]
    fn an_empty_table_keeps_its_columns_and_types() {
        let empty = [Column::F64(vec![]), Column::Bool(vec![])];
        let refs = [("srtt_s", &empty[0]), ("completed", &empty[1])];
        let err = write("tcp_trace", &refs, &[]).unwrap_err();
        assert_eq!(err.0, "tcp_trace.completed is not in the engine's schema");
        let bytes = write("tcp_trace", &refs[..1], &[]).unwrap();
        let (schema, batches) = read(bytes);
        assert_eq!(schema.field(0).data_type(), &DataType::Float64);
        assert_eq!(batches.iter().map(RecordBatch::num_rows).sum::<usize>(), 0);
    }

    #[test]
    fn columns_that_do_not_match_the_schema_are_refused() {
        let floats = Column::F64(vec![1.0]);
        let two = Column::I64(vec![1, 2]);
        assert_eq!(
            write("nope", &[], &[]).unwrap_err().0,
            "no table \"nope\" in the engine's schema"
        );
        assert_eq!(
            write("link", &[("bytes", &floats)], &[]).unwrap_err().0,
            "link.bytes is declared i64 but was given other values"
        );
        assert_eq!(
            write("link", &[("t_s", &floats), ("bytes", &two)], &[])
                .unwrap_err()
                .0,
            "link.bytes has 2 rows where t_s has 1"
        );
    }

    #[test]
    fn each_column_type_has_its_encoding() {
        let columns = link_columns();
        let refs: Vec<(&str, &Column)> = columns.iter().map(|(n, c)| (*n, c)).collect();
        let bytes = write_pack("link", &[0, 0, 1], 2, &refs, &[]).unwrap();
        let builder = ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::from(bytes)).unwrap();
        let group = builder.metadata().row_group(0);
        let encodings = |i: usize| group.column(i).encodings().collect::<Vec<Encoding>>();
        assert!(
            encodings(0).contains(&INTEGERS),
            "run_index: {:?}",
            encodings(0)
        );
        assert!(encodings(1).contains(&FLOATS), "t_s: {:?}", encodings(1));
        assert!(
            encodings(2).contains(&Encoding::RLE_DICTIONARY),
            "direction: {:?}",
            encodings(2)
        );
        assert!(
            encodings(3).contains(&INTEGERS),
            "bytes: {:?}",
            encodings(3)
        );
    }

    #[test]
    fn extreme_integers_and_floats_read_back_exactly() {
        let rows = 3 * COMPRESSED_FROM_ROWS + 7; // compressed, and a last delta block part full
        let extremes = [i64::MIN, i64::MAX, 0, -1, 1, i64::MIN + 1];
        let integers: Vec<i64> = (0..rows).map(|i| extremes[i % extremes.len()]).collect();
        let odd = [f64::NAN, f64::INFINITY, -0.0, 1e-300, f64::MAX, -2.5];
        let floats: Vec<f64> = (0..rows).map(|i| odd[i % odd.len()]).collect();
        let (t, b) = (Column::F64(floats.clone()), Column::I64(integers.clone()));
        let bytes = write("link", &[("t_s", &t), ("bytes", &b)], &[]).unwrap();
        let (_, batches) = read(bytes);
        let (mut back_floats, mut back_integers) = (Vec::new(), Vec::new());
        for batch in &batches {
            let t = batch
                .column(0)
                .as_primitive::<arrow_array::types::Float64Type>();
            back_floats.extend(t.values().iter().map(|x| x.to_bits()));
            let b = batch
                .column(1)
                .as_primitive::<arrow_array::types::Int64Type>();
            back_integers.extend_from_slice(b.values());
        }
        let bits: Vec<u64> = floats.iter().map(|x| x.to_bits()).collect();
        assert!(back_floats == bits, "floats changed");
        assert!(back_integers == integers, "integers changed");
    }

    #[test]
    fn short_tables_are_written_uncompressed_and_longer_ones_with_zstd() {
        let compression = |rows: usize, runs: Option<usize>| {
            let times = Column::F64((0..rows).map(|i| i as f64 * 0.01).collect());
            let bytes = match runs {
                None => write("link", &[("t_s", &times)], &[]).unwrap(),
                Some(n) => {
                    let index: Vec<i64> = (0..rows).map(|i| (i * n / rows) as i64).collect();
                    write_pack("link", &index, n, &[("t_s", &times)], &[]).unwrap()
                }
            };
            let builder =
                ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::from(bytes)).unwrap();
            builder.metadata().row_group(0).column(0).compression()
        };
        assert_eq!(
            compression(COMPRESSED_FROM_ROWS - 1, None),
            Compression::UNCOMPRESSED
        );
        assert!(matches!(
            compression(COMPRESSED_FROM_ROWS, None),
            Compression::ZSTD(_)
        ));
        // A pack: as its runs' tables alone would be.
        assert_eq!(
            compression(4 * COMPRESSED_FROM_ROWS - 1, Some(4)),
            Compression::UNCOMPRESSED
        );
        assert!(matches!(
            compression(4 * COMPRESSED_FROM_ROWS, Some(4)),
            Compression::ZSTD(_)
        ));
    }
}

//! The report's plots, as SVG (plotters; text is left to the viewer's fonts): BPS and
//! SCS as grouped bars with their intervals, the decay curves as lines, cost as bars.

use std::path::{Path, PathBuf};

use plotters::prelude::*;

use super::bps::headline;
use super::Evaluation;

const W: u32 = 800;
const H: u32 = 480;
/// One colour per arm (or band), in order.
const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

/// A bar: its value and, if known, its interval.
type Bar = Option<(f64, Option<[f64; 2]>)>;

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Grouped bars: `groups` along x, one bar per series in each, whiskers for intervals.
fn bars(path: &Path, title: &str, y_label: &str, groups: &[String], series: &[(String, Vec<Bar>)]) -> Result<(), String> {
    let root = SVGBackend::new(path, (W, H)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let values = series.iter().flat_map(|(_, v)| v.iter().flatten().flat_map(|(x, ci)| [Some(*x), ci.map(|c| c[0]), ci.map(|c| c[1])]));
    let (lo, hi) = values.flatten().fold((0.0f64, 0.0f64), |(l, h), x| (l.min(x), h.max(x)));
    let pad = ((hi - lo) * 0.1).max(0.05);
    let n = groups.len().max(1);
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(0f64..n as f64, (lo.min(0.0) - if lo < 0.0 { pad } else { 0.0 })..(hi + pad))
        .map_err(err)?;
    let names = groups.to_vec();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n * 2 + 1)
        .x_label_formatter(&move |x| {
            let i = x.floor() as usize;
            if (x - i as f64 - 0.5).abs() < 0.01 {
                names.get(i).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .y_desc(y_label)
        .draw()
        .map_err(err)?;
    let width = 0.8 / series.len().max(1) as f64;
    for (s, (name, vals)) in series.iter().enumerate() {
        let color = PALETTE[s % PALETTE.len()];
        let rects = vals.iter().enumerate().filter_map(|(g, v)| {
            let (y, _) = (*v)?;
            let x0 = g as f64 + 0.1 + s as f64 * width;
            Some(Rectangle::new([(x0, 0.0), (x0 + width * 0.9, y)], color.filled()))
        });
        chart
            .draw_series(rects)
            .map_err(err)?
            .label(name.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled()));
        let whiskers = vals.iter().enumerate().filter_map(|(g, v)| {
            let (_, ci) = (*v)?;
            let c = ci?;
            let x = g as f64 + 0.1 + s as f64 * width + width * 0.45;
            Some(PathElement::new(vec![(x, c[0]), (x, c[1])], BLACK.stroke_width(2)))
        });
        chart.draw_series(whiskers).map_err(err)?;
    }
    chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw().map_err(err)?;
    root.present().map_err(err)
}

fn arms(e: &Evaluation) -> Vec<String> {
    e.arms.iter().map(|(a, _)| a.clone()).collect()
}

/// BPS per stimulus (its headline response, all agents), one bar per arm.
fn bps(e: &Evaluation, path: &Path) -> Result<(), String> {
    let mut kinds: Vec<String> = e.bps.iter().map(|b| b.stimulus.clone()).collect();
    kinds.sort();
    kinds.dedup();
    let series = arms(e)
        .into_iter()
        .map(|arm| {
            let vals = kinds
                .iter()
                .map(|k| {
                    e.bps
                        .iter()
                        .find(|b| b.arm == arm && b.agent == "*" && &b.stimulus == k && b.response == headline(k))
                        .and_then(|b| b.bps.map(|v| (v, b.ci)))
                })
                .collect();
            (arm, vals)
        })
        .collect::<Vec<_>>();
    let groups: Vec<String> = kinds.iter().map(|k| format!("{k} ({})", headline(k))).collect();
    bars(path, "Behavioral Persistence Score by stimulus", "BPS", &groups, &series)
}

/// SCS per act, one bar per arm.
fn scs(e: &Evaluation, path: &Path) -> Result<(), String> {
    let mut acts: Vec<String> = e.scs.summary.iter().map(|s| s.act.clone()).collect();
    acts.sort();
    acts.dedup();
    let series = arms(e)
        .into_iter()
        .map(|arm| {
            let vals = acts
                .iter()
                .map(|a| e.scs.summary.iter().find(|s| s.arm == arm && &s.act == a).and_then(|s| s.mean.map(|m| (m, s.ci))))
                .collect();
            (arm, vals)
        })
        .collect::<Vec<_>>();
    bars(path, "Social Consequence Score by act", "SCS (stance change / valence)", &acts, &series)
}

/// Mean salience by age, one line per (arm, band).
fn decay(e: &Evaluation, path: &Path) -> Result<(), String> {
    let root = SVGBackend::new(path, (W, H)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let max_age = e.decay.iter().flat_map(|b| b.curve.iter().map(|c| c.age)).max().unwrap_or(1).max(1);
    let max_s = e.decay.iter().flat_map(|b| b.curve.iter().map(|c| c.mean)).fold(1.0f64, f64::max);
    let mut chart = ChartBuilder::on(&root)
        .caption("Salience across dream cycles, by valence band", ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(0f64..max_age as f64, 0f64..max_s * 1.05)
        .map_err(err)?;
    chart.configure_mesh().x_desc("cycles since the memory was made").y_desc("mean salience").draw().map_err(err)?;
    for (i, b) in e.decay.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let dashed = b.arm == "valence_off";
        let pts: Vec<(f64, f64)> = b.curve.iter().map(|c| (c.age as f64, c.mean)).collect();
        let label = format!("{} {} (slope {})", b.arm, b.band, b.slope.map(|s| format!("{s:+.3}")).unwrap_or("n/a".into()));
        let style = if dashed { color.stroke_width(1) } else { color.stroke_width(3) };
        chart.draw_series(LineSeries::new(pts.clone(), style)).map_err(err)?.label(label).legend(move |(x, y)| {
            PathElement::new(vec![(x, y), (x + 16, y)], if dashed { color.stroke_width(1) } else { color.stroke_width(3) })
        });
        chart.draw_series(pts.into_iter().map(|p| Circle::new(p, 3, color.filled()))).map_err(err)?;
    }
    chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw().map_err(err)?;
    root.present().map_err(err)
}

/// Tokens: the raw stream against the injected summary, per arm (thousands).
fn cost(e: &Evaluation, path: &Path) -> Result<(), String> {
    let groups: Vec<String> = e.cost.iter().map(|c| c.arm.clone()).collect();
    let series = vec![
        ("raw stream (k tokens)".to_string(), e.cost.iter().map(|c| Some((c.raw_tokens as f64 / 1e3, None))).collect()),
        ("injected summaries (k tokens)".to_string(), e.cost.iter().map(|c| Some((c.summary_tokens as f64 / 1e3, None))).collect()),
    ];
    bars(path, "What memory costs: raw stream vs summary", "thousand tokens", &groups, &series)
}

/// Writes the four plots into `dir`; their paths.
/// The plots' file names, in the order [`write_all`] writes them.
pub const NAMES: [&str; 4] = ["bps.svg", "scs.svg", "decay.svg", "cost.svg"];

/// Draws every plot into `dir`, each written new and put in place when complete
/// (never over a file unless `force`, never through a symlink).
pub fn write_all(e: &Evaluation, dir: &Path, force: bool) -> Result<Vec<PathBuf>, String> {
    type Plot = fn(&Evaluation, &Path) -> Result<(), String>;
    let plots: [Plot; 4] = [bps, scs, decay, cost];
    let mut out = Vec::new();
    for (name, f) in NAMES.into_iter().zip(plots) {
        let p = dir.join(name);
        let new = pawns_storage::files::create(&p, force).map_err(|e| format!("{e} ({})", e.code()))?;
        f(e, new.tmp_path()).map_err(|m| format!("{name}: {m}"))?;
        new.commit().map_err(|e| format!("{e} ({})", e.code()))?;
        out.push(p);
    }
    Ok(out)
}

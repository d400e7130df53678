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

/// A bar: its value and, if known, its interval, and whether it stands on too few trials
/// (drawn faint); none: no value (`n/a`, written where the bar would be — never a 0).
type Bar = Option<(f64, Option<[f64; 2]>, bool)>;

/// A group's name under the middle of its bars (the axis' other ticks unnamed).
fn group_label(names: &[String], x: f64) -> String {
    let i = x.floor() as usize;
    if (x - i as f64 - 0.5).abs() < 0.01 {
        names.get(i).cloned().unwrap_or_default()
    } else {
        String::new()
    }
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Grouped bars: `groups` along x, one bar per series in each, whiskers for intervals.
fn bars(path: &Path, title: &str, axes: (&str, &str), groups: &[String], series: &[(String, Vec<Bar>)]) -> Result<(), String> {
    let (x_label, y_label) = axes;
    let root = SVGBackend::new(path, (W, H)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let values = series.iter().flat_map(|(_, v)| v.iter().flatten().flat_map(|(x, ci, _)| [Some(*x), ci.map(|c| c[0]), ci.map(|c| c[1])]));
    let (lo, hi) = values.flatten().fold((0.0f64, 0.0f64), |(l, h), x| (l.min(x), h.max(x)));
    let pad = ((hi - lo) * 0.1).max(0.05);
    let n = groups.len().max(1);
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(56)
        .build_cartesian_2d(0f64..n as f64, (lo.min(0.0) - if lo < 0.0 { pad } else { 0.0 })..(hi + pad))
        .map_err(err)?;
    let names = groups.to_vec();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n * 2 + 1)
        .x_label_formatter(&move |x| group_label(&names, *x))
        .x_desc(x_label)
        .y_desc(y_label)
        .draw()
        .map_err(err)?;
    let width = 0.8 / series.len().max(1) as f64;
    for (s, (name, vals)) in series.iter().enumerate() {
        let color = PALETTE[s % PALETTE.len()];
        let rects = vals.iter().enumerate().filter_map(|(g, v)| {
            let (y, _, few) = (*v)?;
            let x0 = g as f64 + 0.1 + s as f64 * width;
            let style = if few { color.mix(0.35).filled() } else { color.filled() };
            Some(Rectangle::new([(x0, 0.0), (x0 + width * 0.9, y)], style))
        });
        chart
            .draw_series(rects)
            .map_err(err)?
            .label(name.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled()));
        // No value: "n/a" where the bar would stand, so it is never read as 0.
        let missing = vals.iter().enumerate().filter(|(_, v)| v.is_none()).map(|(g, _)| {
            let x = g as f64 + 0.1 + s as f64 * width + width * 0.1;
            Text::new("n/a", (x, pad * 0.3), ("sans-serif", 13).into_font().color(&color))
        });
        chart.draw_series(missing).map_err(err)?;
        let whiskers = vals.iter().enumerate().filter_map(|(g, v)| {
            let (_, ci, _) = (*v)?;
            let c = ci?;
            let x = g as f64 + 0.1 + s as f64 * width + width * 0.45;
            Some(PathElement::new(vec![(x, c[0]), (x, c[1])], BLACK.stroke_width(2)))
        });
        chart.draw_series(whiskers).map_err(err)?;
    }
    chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw().map_err(err)?;
    root.present().map_err(err)
}

/// A plot with nothing to draw: its title and why, no invented axis.
fn empty(path: &Path, title: &str, why: &str) -> Result<(), String> {
    let root = SVGBackend::new(path, (W, H / 3)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    root.draw(&Text::new(title.to_string(), (20, 30), ("sans-serif", 22).into_font())).map_err(err)?;
    root.draw(&Text::new(why.to_string(), (20, 80), ("sans-serif", 16).into_font().color(&RGBColor(90, 90, 90)))).map_err(err)?;
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
                        .and_then(|b| b.bps.map(|v| (v, b.ci, b.band == "too_few")))
                })
                .collect();
            (arm, vals)
        })
        .collect::<Vec<_>>();
    let groups: Vec<String> = kinds.iter().map(|k| format!("{k} ({})", headline(k))).collect();
    bars(
        path,
        &format!("Behavioral Persistence Score by stimulus (faint: under {} trials a group)", super::bps::MIN_N),
        ("stimulus (headline response)", "BPS with its 95 % interval"),
        &groups,
        &series,
    )
}

/// SCS per act, one bar per arm.
fn scs(e: &Evaluation, path: &Path) -> Result<(), String> {
    let mut acts: Vec<String> = e.scs.summary.iter().map(|s| s.act.clone()).collect();
    acts.sort();
    acts.dedup();
    let series = arms(e)
        .into_iter()
        .map(|arm| {
            let vals: Vec<Bar> = acts
                .iter()
                .map(|a| e.scs.summary.iter().find(|s| s.arm == arm && &s.act == a).and_then(|s| s.mean.map(|m| (m, s.ci, false))))
                .collect();
            (arm, vals)
        })
        .collect::<Vec<_>>();
    if series.iter().all(|(_, v)| v.iter().all(Option::is_none)) {
        return empty(path, "Social Consequence Score by act", "no social act was scored: no axis is drawn for no data");
    }
    bars(path, "Social Consequence Score by act", ("act by another player", "SCS (stance change / valence)"), &acts, &series)
}

/// Bands' colours, fixed: the same band is the same colour in every arm.
pub fn band_colour(band: &str) -> RGBColor {
    match band {
        "-3..-2" => PALETTE[3],
        "-1" => PALETTE[1],
        "0" => RGBColor(110, 110, 110),
        "+1" => PALETTE[4],
        _ => PALETTE[2],
    }
}

/// Mean salience by age with its interval, one line per (arm, band): the colour is the
/// band's, the arm is the line (thick: the first arm, thin: the others) and the marker
/// (circle, triangle, square); the legend stands beside the plot, never over a line.
fn decay(e: &Evaluation, path: &Path) -> Result<(), String> {
    if e.decay.is_empty() {
        return empty(path, "Salience across dream cycles", "no memory was dreamed: nothing to draw");
    }
    let root = SVGBackend::new(path, (W + 240, H)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let (plot, legend) = root.split_horizontally(W);
    let max_age = e.decay.iter().flat_map(|b| b.curve.iter().map(|c| c.age)).max().unwrap_or(1).max(1);
    let max_s = e.decay.iter().flat_map(|b| b.curve.iter().map(|c| c.ci.map_or(c.mean, |ci| ci[1]))).fold(1.0f64, f64::max);
    let mut chart = ChartBuilder::on(&plot)
        .caption("Salience across dream cycles, by valence band (95 % intervals)", ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(-0.2f64..max_age as f64 + 0.2, 0f64..max_s * 1.05)
        .map_err(err)?;
    chart.configure_mesh().x_desc("cycles since the memory was made").y_desc("mean salience").draw().map_err(err)?;
    let mut arms: Vec<&str> = e.decay.iter().map(|b| b.arm.as_str()).collect();
    arms.dedup();
    for (i, b) in e.decay.iter().enumerate() {
        let color = band_colour(&b.band);
        let a = arms.iter().position(|x| *x == b.arm).unwrap_or(0);
        let shift = (a as f64 - (arms.len() as f64 - 1.0) / 2.0) * 0.06;
        let pts: Vec<(f64, f64)> = b.curve.iter().map(|c| (c.age as f64 + shift, c.mean)).collect();
        chart.draw_series(LineSeries::new(pts.clone(), color.stroke_width(if a == 0 { 3 } else { 1 }))).map_err(err)?;
        let whiskers = b.curve.iter().filter_map(|c| {
            c.ci.map(|ci| {
                PathElement::new(vec![(c.age as f64 + shift, ci[0].max(0.0)), (c.age as f64 + shift, ci[1])], color.stroke_width(1))
            })
        });
        chart.draw_series(whiskers).map_err(err)?;
        match a % 3 {
            0 => chart.draw_series(pts.iter().map(|p| Circle::new(*p, 4, color.filled()))).map(|_| ()),
            1 => chart.draw_series(pts.iter().map(|p| TriangleMarker::new(*p, 5, color.filled()))).map(|_| ()),
            _ => chart.draw_series(pts.iter().map(|p| Cross::new(*p, 4, color.stroke_width(2)))).map(|_| ()),
        }
        .map_err(err)?;
        // The legend, beside the plot.
        let y = 40 + i as i32 * 22;
        let label = format!("{} {} (slope {})", b.arm, b.band, b.slope.map(|s| format!("{s:+.3}")).unwrap_or("n/a".into()));
        legend.draw(&PathElement::new(vec![(4, y), (24, y)], color.stroke_width(if a == 0 { 3 } else { 1 }))).map_err(err)?;
        legend.draw(&Text::new(label, (30, y - 7), ("sans-serif", 12).into_font())).map_err(err)?;
    }
    // Beside it, the forgetting curve against the truth (memcheck): the share of probes
    // whose events the graph still holds, by cycles since it took them in.
    if let Some(held) = e.memcheck.as_ref().map(|m| &m.held).filter(|h| !h.is_empty()) {
        let pts: Vec<(f64, f64)> = held.iter().filter_map(|(age, p)| p.p.map(|v| (*age as f64, v))).collect();
        chart.draw_series(LineSeries::new(pts.clone(), BLACK.stroke_width(2))).map_err(err)?;
        chart.draw_series(pts.iter().map(|p| Cross::new(*p, 4, BLACK.stroke_width(2)))).map_err(err)?;
        let whiskers = held.iter().filter_map(|(age, p)| {
            super::stats::wilson(*p).map(|c| PathElement::new(vec![(*age as f64, c[0]), (*age as f64, c[1])], BLACK.stroke_width(1)))
        });
        chart.draw_series(whiskers).map_err(err)?;
        let y = 40 + e.decay.len() as i32 * 22 + 10;
        legend.draw(&PathElement::new(vec![(4, y), (24, y)], BLACK.stroke_width(2))).map_err(err)?;
        legend.draw(&Text::new("probes' events still held (memcheck)", (30, y - 7), ("sans-serif", 12).into_font())).map_err(err)?;
    }
    root.present().map_err(err)
}

/// Tokens: the raw stream against the injected summary, per arm, on a log axis (one arm's
/// raw stream can be fifty times another's summary).
fn cost(e: &Evaluation, path: &Path) -> Result<(), String> {
    let groups: Vec<String> = e.cost.iter().map(|c| c.arm.clone()).collect();
    let series: [(&str, Vec<f64>); 2] = [
        ("raw stream", e.cost.iter().map(|c| c.raw_tokens as f64).collect()),
        ("injected summaries", e.cost.iter().map(|c| c.summary_tokens as f64).collect()),
    ];
    let hi = series.iter().flat_map(|(_, v)| v.iter().copied()).fold(10.0f64, f64::max);
    if groups.is_empty() || series.iter().all(|(_, v)| v.iter().all(|x| *x <= 0.0)) {
        return empty(path, "What memory costs: raw stream vs summary", "no dream in the selection: no tokens to compare");
    }
    let root = SVGBackend::new(path, (W, H)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let n = groups.len();
    let mut chart = ChartBuilder::on(&root)
        .caption("What memory costs: raw stream vs summary (log scale)", ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d(0f64..n as f64, (1f64..hi * 2.0).log_scale())
        .map_err(err)?;
    let names = groups.clone();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n * 2 + 1)
        .x_label_formatter(&move |x| group_label(&names, *x))
        .x_desc("arm")
        .y_desc("tokens (log)")
        .draw()
        .map_err(err)?;
    for (s, (name, vals)) in series.iter().enumerate() {
        let color = PALETTE[s];
        let rects = vals.iter().enumerate().filter(|(_, v)| **v >= 1.0).map(|(g, v)| {
            let x0 = g as f64 + 0.1 + s as f64 * 0.4;
            Rectangle::new([(x0, 1.0), (x0 + 0.36, *v)], color.filled())
        });
        chart
            .draw_series(rects)
            .map_err(err)?
            .label(*name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
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

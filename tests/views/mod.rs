//! Drawing the app into a test terminal, as the view snapshots read it.
#![allow(dead_code)]

pub mod fixtures;

use gcs_speed_tui::tui::app::{App, Message};
use gcs_speed_tui::tui::ui;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

pub fn press(app: &mut App, code: KeyCode) {
    app.update(Message::Terminal(Event::Key(KeyEvent::new(code, KeyModifiers::NONE))));
}

pub fn screen(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| ui::render(frame, app)).unwrap();
    let buffer = terminal.backend().buffer();
    (0..height)
        .map(|y| (0..width).map(|x| buffer[(x, y)].symbol()).collect::<String>().trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The advertised minimum, a common size, and a large one.
pub const SIZES: [(u16, u16); 3] = [(100, 30), (120, 40), (200, 60)];

/// The same state at every size in `SIZES`, one after the other.
pub fn three_sizes(app: &App) -> String {
    SIZES.iter().map(|&(w, h)| format!("--- {w}x{h}\n{}", screen(app, w, h))).collect::<Vec<_>>().join("\n")
}

/// The drawn cells, styles included (what a text snapshot does not show).
pub fn buffer(app: &App, width: u16, height: u16) -> ratatui::buffer::Buffer {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| ui::render(frame, app)).unwrap();
    terminal.backend().buffer().clone()
}

/// The built-in emulator as a finished report names it.
pub fn target() -> gcs_speed_tui::gcs::target::TargetInfo {
    gcs_speed_tui::gcs::target::TargetInfo {
        kind: "emulator".into(),
        json_endpoint: Some("http://127.0.0.1:9000".into()),
        grpc_endpoint: Some("127.0.0.1:9001".into()),
        bucket: "gcs-speed-tui-bench".into(),
        credentials: "none (emulator)".into(),
        credential_type: None,
        principal: None,
        emulator_fault: None,
    }
}

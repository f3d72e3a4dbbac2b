//! Styles, with and without colour (NO_COLOR turns colour off; emphasis stays).

use crate::engine::plan::TransportKind;
use ratatui::style::{Color, Modifier, Style};

pub struct Theme {
    color: bool,
}

impl Theme {
    pub fn new(color: bool) -> Self {
        Self { color }
    }

    fn fg(&self, color: Color) -> Style {
        if self.color { Style::new().fg(color) } else { Style::new() }
    }

    pub fn title(&self) -> Style {
        self.fg(Color::Black)
            .bg(if self.color { Color::Cyan } else { Color::Reset })
            .add_modifier(Modifier::BOLD | Modifier::REVERSED)
    }

    pub fn target(&self, emulator: bool) -> Style {
        self.fg(if emulator { Color::Yellow } else { Color::Green }).add_modifier(Modifier::BOLD)
    }

    pub fn accent(&self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }

    pub fn dim(&self) -> Style {
        self.fg(Color::Gray)
    }

    pub fn status(&self) -> Style {
        self.fg(Color::Yellow)
    }

    pub fn warning(&self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
    }

    pub fn error(&self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }

    pub fn selected(&self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED)
    }

    pub fn popup(&self) -> Style {
        Style::new()
    }

    pub fn transport(&self, kind: TransportKind) -> Style {
        self.fg(match kind {
            TransportKind::Json => Color::Cyan,
            TransportKind::Grpc => Color::Magenta,
            TransportKind::GrpcReadObject => Color::Yellow,
        })
    }
}

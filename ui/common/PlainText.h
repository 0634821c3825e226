// Names read from a program (methods, operators, delegate ids, compile-spec
// keys, file paths) are arbitrary text: "fwd<script>…" must show as those
// characters, never be taken for rich text. Qt's labels, message boxes and
// tooltips guess the format (Qt::AutoText): these helpers stop the guess.
#pragma once

#include <QObject>
#include <QString>

class QApplication;

namespace ptescope::ui {

// A tooltip that shows `text` literally: unchanged when Qt would take it for
// plain text anyway, else escaped inside a paragraph that keeps its line breaks.
QString plainToolTip(const QString& text);

// Every QLabel of the application is plain text unless it sets the dynamic
// property "richText" to true before it is first shown, and a label named for
// its role carries its text in its accessible description; installed once
// per application (MainWindow does it, first thing).
void installPlainTextLabels(QApplication* app);

}  // namespace ptescope::ui

// Controls are named by what they set, for screen readers. Qt 6.4 names a
// combo box on Linux by its current text and ignores its accessible name, so
// 37 delegate target choosers would all read "cuda:0": here a combo box reads
// its accessible name (else its buddy label's text) and keeps its current
// text as its value. Mnemonic labels read without the '&'.
#pragma once

#include <QString>

class QWidget;

namespace ptescope::ui {

// "&Method:" as shown: "Method:" (a single '&' dropped, "&&" read as '&').
QString withoutMnemonic(const QString& text);

// `text` (a name from the file) for a button or check box: each '&' doubled,
// so it shows as '&' and no letter is taken for a mnemonic.
QString mnemonicSafe(QString text);

// What names `control` for a screen reader: its accessible name, else the
// text of a label whose buddy it is ("Method" for "&Method:"), else "".
QString controlName(const QWidget* control);

// Installs the combo box interface once per application (installPlainTextLabels does it).
void installAccessibleNames();

}  // namespace ptescope::ui

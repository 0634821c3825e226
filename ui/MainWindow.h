// The main window: program tree on the left, the program's summary in the
// centre (the graph view replaces it in a later step), status bar below.
#pragma once

#include <QMainWindow>

class QLabel;
class QPlainTextEdit;
class QTreeWidget;

namespace ptescope::ui {

class Document;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(Document* document, QWidget* parent = nullptr);

  bool openFile(const QString& path);

 private:
  void refresh();
  void showOpenDialog();
  void showLoadError(const QString& message);

  Document* document_;
  QTreeWidget* tree_;
  QPlainTextEdit* summary_;
  QLabel* statusFile_;
  QLabel* statusCounts_;
};

}  // namespace ptescope::ui

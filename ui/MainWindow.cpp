#include "ui/MainWindow.h"

#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QStatusBar>
#include <QTreeWidget>

#include "analysis/Summary.h"
#include "report/InfoReport.h"
#include "ui/Document.h"

namespace ptescope::ui {
using namespace ptescope::program;

MainWindow::MainWindow(Document* document, QWidget* parent)
    : QMainWindow(parent), document_(document), tree_(new QTreeWidget), summary_(new QPlainTextEdit),
      statusFile_(new QLabel), statusCounts_(new QLabel) {
  setWindowIcon(QIcon(":/icons/ptescope.svg"));
  resize(1280, 800);

  summary_->setReadOnly(true);
  summary_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  summary_->setObjectName("summary");
  setCentralWidget(summary_);

  tree_->setObjectName("programTree");
  tree_->setHeaderLabels({tr("Program"), tr("Details")});
  tree_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  auto* dock = new QDockWidget(tr("Program"), this);
  dock->setObjectName("programDock");
  dock->setWidget(tree_);
  addDockWidget(Qt::LeftDockWidgetArea, dock);

  auto* fileMenu = menuBar()->addMenu(tr("&File"));
  fileMenu->addAction(tr("&Open..."), QKeySequence::Open, this, &MainWindow::showOpenDialog);
  fileMenu->addSeparator();
  fileMenu->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);
  menuBar()->addMenu(tr("&View"))->addAction(dock->toggleViewAction());

  statusBar()->addWidget(statusFile_, 1);
  statusBar()->addPermanentWidget(statusCounts_);

  connect(document_, &Document::programChanged, this, &MainWindow::refresh);
  refresh();
}

bool MainWindow::openFile(const QString& path) {
  QString error;
  if (!document_->open(path, &error)) {
    showLoadError(error);
    return false;
  }
  return true;
}

void MainWindow::showOpenDialog() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open ExecuTorch program"), QString(),
                                                    tr("ExecuTorch programs (*.pte);;All files (*)"));
  if (!path.isEmpty()) openFile(path);
}

void MainWindow::showLoadError(const QString& message) {
  statusFile_->setText(message);
  if (!qEnvironmentVariableIsSet("PTESCOPE_NO_DIALOGS") && QApplication::platformName() != "offscreen")
    QMessageBox::warning(this, tr("Cannot open program"), message);
}

void MainWindow::refresh() {
  tree_->clear();
  if (!document_->hasProgram()) {
    setWindowTitle("ptescope");
    summary_->setPlainText(tr("No program loaded.\n\nUse File > Open to inspect an ExecuTorch program (.pte)."));
    statusFile_->setText(tr("No program"));
    statusCounts_->clear();
    return;
  }
  const auto& loaded = document_->loaded();
  const Program& program = loaded.program;
  setWindowTitle(QFileInfo(document_->path()).fileName() + " — ptescope");
  summary_->setPlainText(QString::fromStdString(report::infoText(loaded)));

  auto* methods = new QTreeWidgetItem(tree_, {tr("Methods"), QString::number(program.methods().size())});
  size_t instructionCount = 0;
  for (const auto& m : program.methods()) {
    auto s = analysis::summarizeMethod(m);
    instructionCount += s.instructions;
    auto* mi = new QTreeWidgetItem(methods, {QString::fromStdString(s.name),
                                             tr("%1 values, %2 instructions").arg(s.values).arg(s.instructions)});
    if (!s.operators.empty()) {
      auto* ops = new QTreeWidgetItem(mi, {tr("Operators"), QString::number(s.operators.size())});
      for (const auto& op : s.operators) new QTreeWidgetItem(ops, {QString::fromStdString(op)});
    }
    const auto& delegates = items(m.delegates);
    if (!delegates.empty()) {
      auto* dels = new QTreeWidgetItem(mi, {tr("Delegates"), QString::number(delegates.size())});
      for (const auto& d : delegates) {
        auto* di = new QTreeWidgetItem(dels, {QString::fromStdString(d.id.value_or("?"))});
        for (const auto& spec : items(d.compile_specs))
          new QTreeWidgetItem(di, {QString::fromStdString(spec.key.value_or("")),
                                   QString::fromStdString(report::compileSpecValueText(items(spec.value)))});
      }
    }
  }
  const auto& segs = items(program.segments);
  auto* segments = new QTreeWidgetItem(tree_, {tr("Segments"), QString::number(segs.size())});
  for (size_t i = 0; i < segs.size(); ++i)
    new QTreeWidgetItem(segments, {tr("segment %1").arg(i), tr("%1 bytes at %2").arg(segs[i].data.size()).arg(segs[i].offset)});
  const auto& named = items(program.named_data);
  if (!named.empty()) {
    auto* nd = new QTreeWidgetItem(tree_, {tr("Named data"), QString::number(named.size())});
    for (const auto& n : named)
      new QTreeWidgetItem(nd, {QString::fromStdString(n.key.value_or("")), tr("segment %1").arg(n.segment_index)});
  }
  tree_->expandToDepth(1);
  statusFile_->setText(document_->path());
  statusCounts_->setText(tr("%1 methods, %2 instructions").arg(program.methods().size()).arg(instructionCount));
}

}  // namespace ptescope::ui

#include "ui/window/MainWindow.h"
#include "ui/common/DistinctNames.h"
#include "ui/common/PlainText.h"
#include "ui/document/FileChangeWatcher.h"
#include "ui/panels/OutputsPanel.h"
#include "ui/profile/LinkSelection.h"

#include <QAbstractSpinBox>
#include <QAction>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QRegularExpression>
#include <QScreen>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QScrollArea>
#include <QFontMetrics>
#include <QUndoStack>
#include <QAbstractItemView>
#include <QComboBox>
#include <QStylePainter>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QDir>
#include <QTableView>
#include <QTimer>
#include <QShortcut>
#include <QToolBar>
#include <QTreeView>
#include <QVBoxLayout>

#include <functional>

#include <QGraphicsView>
#include <QAbstractButton>
#include <QKeyEvent>
#include <QTabBar>

#include "analysis/Diagnostics.h"
#include "analysis/Summary.h"
#include "exec/DeviceRuntime.h"
#include "report/InfoReport.h"
#include "ui/panels/ChangesPanel.h"
#include "ui/panels/DiagnosticsModel.h"
#include "ui/document/Document.h"
#include "ui/common/ElidedLabel.h"
#include "ui/common/Format.h"
#include "ui/common/ItemRoles.h"
#include "ui/graph/GraphView.h"
#include "ui/panels/MemoryPlanView.h"
#include "ui/panels/PassOptionsPanel.h"
#include "ui/panels/ProgramTreeModel.h"
#include "ui/panels/PropertiesPanel.h"
#include "ui/document/Selection.h"
#include "ui/profile/TimelineView.h"
#include "ui/profile/TransfersModel.h"
#include "ui/panels/ValuesModel.h"

namespace ptescope::ui {
using namespace ptescope::program;

namespace {

// A combo box whose current text, when it does not fit, is cut in its
// middle with an ellipsis: "encode_image_tc" read as a whole name.
class ElidingComboBox : public QComboBox {
 protected:
  void paintEvent(QPaintEvent*) override {
    QStylePainter painter(this);
    QStyleOptionComboBox option;
    initStyleOption(&option);
    painter.drawComplexControl(QStyle::CC_ComboBox, option);
    const QRect field = style()->subControlRect(QStyle::CC_ComboBox, &option, QStyle::SC_ComboBoxEditField, this);
    option.currentText = fontMetrics().elidedText(option.currentText, Qt::ElideMiddle, std::max(0, field.width() - 4));
    painter.drawControl(QStyle::CE_ComboBoxLabel, option);
  }
};

constexpr int kMaxRecentFiles = 10;

// The Find field asks the tool bar for little room and takes what is spare
// (up to its maximum): a tool bar lays widgets out at their size hint, so a
// wide hint pushed the tool bar's last controls under its » menu at 1000 px.
class FindField : public QLineEdit {
 public:
  QSize sizeHint() const override { return {minimumWidth(), QLineEdit::sizeHint().height()}; }
  // Escape leaves the field for the graph (it kept the focus, so the arrow
  // keys moved nothing); the text and its matches stay.
  std::function<void()> escaped;

 protected:
  void keyPressEvent(QKeyEvent* event) override {
    if (event->key() == Qt::Key_Escape && event->modifiers() == Qt::NoModifier && escaped) {
      escaped();
      event->accept();
      return;
    }
    QLineEdit::keyPressEvent(event);
  }
};

bool dialogsAllowed() {
  return !qEnvironmentVariableIsSet("PTESCOPE_NO_DIALOGS") && QApplication::platformName() != "offscreen";
}

}  // namespace

MainWindow::MainWindow(Document* document, QWidget* parent)
    : QMainWindow(parent),
      document_(document),
      treeModel_(new ProgramTreeModel(document, this)),
      valuesModel_(new ValuesModel(document, this)),
      valuesProxy_(new DeviceFilterProxy(this)),
      transfersModel_(new TransfersModel(document, this)),
      statusFile_(new ElidedLabel),
      statusMessage_(new ElidedLabel),
      statusMethod_(new ElidedLabel),
      statusCounts_(new ElidedLabel),
      statusGpu_(new ElidedLabel) {
  setObjectName("mainWindow");
  // Before any widget is made (and polished).
  installPlainTextLabels(qApp);
  setWindowIcon(QIcon(":/icons/ptescope.svg"));
  setAcceptDrops(true);
  // 1400 × 900, or less on a smaller screen: the window starts inside the
  // screen's free area (with room for the window manager's frame).
  QSize start(1400, 900);
  // (Offscreen, for --screenshot and the tests, the size stays: its virtual
  // screen is only 800 × 600.)
  if (const QScreen* screen = QGuiApplication::primaryScreen(); screen && QGuiApplication::platformName() != "offscreen") {
    const QRect free = screen->availableGeometry();
    start = start.boundedTo(QSize(free.width() - 16, free.height() - 48)).expandedTo(QSize(640, 480));
  }
  resize(start);
  valuesProxy_->setSourceModel(valuesModel_);
  // Made after the item models, which follow the document themselves: they
  // have rebuilt by the time the selection tells the window.
  selection_ = new Selection(document_, this);

  buildPanels();
  buildMenus();
  nameControls();

  // The status bar: the file (or a temporary message in its place) on the
  // left, method, counts and GPU on the right. Every label is elided rather
  // than pushing the window wider than the screen, and a message is a label
  // of the layout, never text QStatusBar paints over the permanent labels.
  // Both in one box: QStatusBar hides and shows its own widgets around its
  // messages; the box is shown again as soon as a message is taken over
  // below, and which of the two labels shows is ours alone.
  auto* left = new QWidget;
  left->setObjectName("statusLeft");
  auto* leftRow = new QHBoxLayout(left);
  leftRow->setContentsMargins(0, 0, 0, 0);
  leftRow->addWidget(statusFile_);
  leftRow->addWidget(statusMessage_);
  // The file's path gives way first (the title bar names the file too): the
  // counts and the GPU line were cut at 1000 px while it was read whole.
  left->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  statusBar()->addWidget(left, 1);
  statusMessage_->hide();
  statusMessageTimer_ = new QTimer(this);
  statusMessageTimer_->setSingleShot(true);
  connect(statusMessageTimer_, &QTimer::timeout, this, [this] { showStatus(QString()); });
  // Messages Qt shows itself (status tips) take the same place.
  // (By value: the signal's argument is the status bar's own string, which
  // clearMessage() empties.)
  connect(statusBar(), &QStatusBar::messageChanged, this, [this](QString message) {
    if (message.isEmpty()) return;
    statusBar()->clearMessage();
    showStatus(message, 10000);
  });
  // Method, counts and GPU line take the room their texts need (no stretch:
  // stretch factors share the bar by ratio, and "method forward" kept a
  // third of it while the counts were cut); the file's path has the rest.
  statusBar()->addPermanentWidget(statusMethod_, 0);
  statusBar()->addPermanentWidget(statusCounts_, 0);
  statusBar()->addPermanentWidget(statusGpu_, 0);
  statusGpu_->setObjectName("gpuStatus");
  statusFile_->setObjectName("fileStatus");
  statusMessage_->setObjectName("statusMessage");
  statusMethod_->setObjectName("methodStatus");
  statusCounts_->setObjectName("countsStatus");
  statusFile_->setAccessibleName(tr("File"));
  statusMessage_->setAccessibleName(tr("Status message"));
  statusMethod_->setAccessibleName(tr("Method"));
  statusCounts_->setAccessibleName(tr("Counts"));
  statusGpu_->setAccessibleName(tr("GPU"));
  statusMessage_->setElideMode(Qt::ElideRight);
  statusCounts_->setElideMode(Qt::ElideRight);
  statusGpu_->setElideMode(Qt::ElideRight);
  // Asked once: the answer does not change while the app runs.
  if (auto selection = exec::selectRuntime(exec::RuntimePreference::Auto); selection && !selection->runtime->isEmulated()) {
    statusGpu_->setText(tr("GPU: %1").arg(QString::fromStdString(selection->runtime->name())));
  } else {
    statusGpu_->setText(tr("GPU: none (profiles emulated)"));
    if (selection) statusGpu_->setToolTip(plainToolTip(QString::fromStdString(selection->notice)));
  }
  // A long method name is cut in its middle at 280 px; it squeezed the GPU
  // line to "GPU: none (profiles emula…" and the counts beside it. The GPU
  // line, short and saying whether times are emulated, stays whole.
  statusMethod_->setMaximumWidth(280);  // and more in a wider window: fitLongNamesToWidth()
  statusGpu_->setMinimumWidth(std::min(320, statusGpu_->fontMetrics().horizontalAdvance(statusGpu_->text()) + 8));

  connect(document_, &Document::editsChanged, this, &MainWindow::updateTitle);
  // "Profiled forward ..." stayed on the status line over prefill.
  connect(document_, &Document::currentMethodChanged, this, [this](int index) {
    if (statusAboutMethod_ >= 0 && statusAboutMethod_ != index) showStatus(QString());
    // An imported trace that ran this method too shows its measurements.
    if (profiler_ != nullptr && profiler_->showTraceMethod(index)) applyProfiles();
  });
  // A refused edit's error leaves the status line once the program is valid
  // again (an undo or another edit): it stayed over a valid edit.
  connect(document_, &Document::pipelineFinished, this, [this](bool ok) {
    graph_->setViewNote(viewNote());
    if (!ok) {
      pipelineErrorShown_ = document_->pipelineError();
      showStatus(pipelineErrorShown_, 10000);
    } else if (!pipelineErrorShown_.isEmpty()) {
      if (statusMessage_->text() == pipelineErrorShown_) showStatus(QString());
      pipelineErrorShown_.clear();
    }
  });
  buildFileWatch();
  refreshProgram();
}

void MainWindow::buildMenus() {
  auto* toolbar = addToolBar(tr("Main"));
  toolbar->setObjectName("mainToolbar");
  methodSelector_ = new ElidingComboBox;
  methodSelector_->setObjectName("methodSelector");
  // Room for "forward", "prefill", "decode"; a longer name is elided (the
  // list shows it whole): the tool bar must keep its controls at 1000 px.
  methodSelector_->setMinimumContentsLength(10);
  methodSelector_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  // A long name cut in the box ("encode_image_tc") is read whole in its
  // tool tip and in the list (elided in the middle, as the tree elides).
  methodSelector_->view()->setTextElideMode(Qt::ElideMiddle);
  connect(methodSelector_, &QComboBox::currentTextChanged, methodSelector_, [this](const QString& text) {
    methodSelector_->setToolTip(text.isEmpty() ? QString() : tr("Method: %1").arg(text));
  });
  connect(methodSelector_, &QComboBox::activated, this, [this](int index) { selection_->selectMethod(index); });

  auto* fileMenu = menuBar()->addMenu(tr("&File"));
  auto* open = fileMenu->addAction(tr("&Open..."), QKeySequence::Open, this, &MainWindow::showOpenDialog);
  fileMenu->addAction(tr("Open &Demo Program"), this, [this] { openDemo(); });
  recentMenu_ = fileMenu->addMenu(tr("Open &Recent"));
  fileMenu->addAction(tr("&Import ETDump..."), this, &MainWindow::showImportEtdumpDialog)->setObjectName("importEtdumpAction");
  // F5 is Profile Transfers (README): Reload takes Ctrl+Shift+R, beside Run
  // Once's Ctrl+R. tests/ui/test_main_window checks no two actions share a key.
  fileMenu->addAction(tr("Re&load"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R), this, [this] { reloadFromDisk(); })
      ->setObjectName("reloadAction");
  fileMenu->addSeparator();
  // Ctrl+Shift+S written out: QKeySequence::SaveAs is empty on desktops
  // whose platform theme does not define it.
  fileMenu->addAction(tr("Save &As..."), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S), this, &MainWindow::showSaveDialog)
      ->setObjectName("saveAsAction");
  fileMenu->addAction(tr("&Export Report..."), this, &MainWindow::showExportHtmlReportDialog);
  fileMenu->addAction(tr("Export Pass Report as &JSON..."), this, &MainWindow::showExportReportDialog);
  // Export Graph as SVG / PNG: ask where, write, say where it went.
  auto exportGraph = [this](const QString& filter, const QString& suffix,
                            std::function<bool(const QString&, QString*)> write) {
    return [this, filter, suffix, write] {
      const QString path = askSavePath(tr("Export graph"), filter, suffix);
      QString error;
      if (path.isEmpty()) return;
      if (!write(path, &error)) showError(tr("Cannot export the graph"), error);
      else showStatus(tr("Wrote the graph to %1").arg(QDir::toNativeSeparators(path)), 10000);
    };
  };
  fileMenu->addAction(tr("Export Graph as S&VG..."), this,
                      exportGraph(tr("SVG (*.svg)"), QStringLiteral("svg"),
                                  [this](const QString& path, QString* error) { return graph_->exportSvg(path, error); }));
  fileMenu->addAction(tr("Export Graph as &PNG..."), this,
                      exportGraph(tr("PNG (*.png)"), QStringLiteral("png"),
                                  [this](const QString& path, QString* error) { return graph_->exportPng(path, error); }));
  fileMenu->addSeparator();
  fileMenu->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
  rebuildRecentMenu();

  auto* editMenu = menuBar()->addMenu(tr("&Edit"));
  auto* undo = document_->undoStack()->createUndoAction(this, tr("&Undo"));
  undo->setObjectName("undoAction");
  undo->setShortcut(QKeySequence::Undo);
  auto* redo = document_->undoStack()->createRedoAction(this, tr("&Redo"));
  redo->setObjectName("redoAction");
  // The platform's Redo keys (Ctrl+Shift+Z on Linux) and Ctrl+Y, each once:
  // a key listed twice is an ambiguous shortcut and fires nothing.
  QList<QKeySequence> redoKeys = QKeySequence::keyBindings(QKeySequence::Redo);
  for (const QKeySequence& key : {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)})
    if (!redoKeys.contains(key)) redoKeys << key;
  redo->setShortcuts(redoKeys);
  editMenu->addAction(undo);
  editMenu->addAction(redo);
  // What Undo and Redo did, said (an edit of another method than the one
  // shown changed with no visible sign: walkthrough 23). Connected after the
  // stack's own: the command has moved by then.
  connect(undo, &QAction::triggered, this, [this] {
    if (const QString text = document_->undoStack()->redoText(); !text.isEmpty())
      showStatus(tr("Undone: %1").arg(printableText(text)), 8000);
  });
  connect(redo, &QAction::triggered, this, [this] {
    if (const QString text = document_->undoStack()->undoText(); !text.isEmpty())
      showStatus(tr("Redone: %1").arg(printableText(text)), 8000);
  });
  // An edit's text can be long (every option it changed, a candidate's
  // edits): the menu item keeps to about 60 characters, its middle elided,
  // with the whole text as tooltip; a name's "&" is no mnemonic.
  editMenu->setToolTipsVisible(true);
  auto keepShort = [this, editMenu](QAction* action, const QString& verb) {
    return [this, editMenu, action, verb](const QString& text) {
      if (text.isEmpty()) {
        action->setText(verb);
        action->setToolTip(QString());
        return;
      }
      const QFontMetrics metrics(editMenu->font());
      const int room = metrics.averageCharWidth() * 60;
      QString shown = text;
      bool fitted = false;  // cut around the method's name already
      // A method's name in the text ("... of 'encoder_attention_...'") is
      // cut where it differs from the program's other methods: cut in the
      // text's middle, "encoder" and "decoder" read alike.
      if (metrics.horizontalAdvance(shown) > room && document_->hasProgram()) {
        std::vector<QString> names;
        for (const auto& m : document_->program().methods()) names.push_back(QString::fromStdString(m.displayName()));
        const auto parts = distinguishingParts(names);
        for (const auto& [name, part] : parts) {
          const qsizetype at = shown.indexOf(QLatin1Char('\'') + name + QLatin1Char('\''));
          if (at < 0) continue;
          const int rest = metrics.horizontalAdvance(QString(shown).remove(at + 1, name.size()));
          const QString cut = elideAround(name, part, metrics, std::max(room - rest, metrics.averageCharWidth() * 12));
          // The name stays whole (as cut above); what is before and after
          // it shares the rest of the room, each cut at its end ("apply
          // advisor candidate 1 to …tputs --no-alloc-graph-input)" lost the
          // method's name to a cut in the text's middle).
          QString head = shown.left(at + 1), tail = shown.mid(at + 1 + name.size());
          const int available = room - metrics.horizontalAdvance(cut);
          const int headWidth = metrics.horizontalAdvance(head), tailWidth = metrics.horizontalAdvance(tail);
          if (available > 0 && headWidth + tailWidth > available) {
            // The words before the name (what the edit does) whole while
            // they take two thirds at most; the details after it get the rest.
            const int headRoom = headWidth <= available * 2 / 3 ? headWidth
                                 : tailWidth <= available / 3   ? available - tailWidth
                                                                : available * 2 / 3;
            if (headWidth > headRoom) head = metrics.elidedText(head.chopped(1), Qt::ElideRight, headRoom) + QLatin1Char('\'');
            tail = QLatin1Char('\'') + metrics.elidedText(tail.mid(1), Qt::ElideRight,
                                                          std::max(0, available - metrics.horizontalAdvance(head)));
          }
          shown = head + cut + tail;
          fitted = available > 0;
          break;
        }
      }
      if (!fitted) shown = metrics.elidedText(shown, Qt::ElideMiddle, room);
      action->setText(verb + QLatin1Char(' ') + shown.replace(QLatin1Char('&'), QStringLiteral("&&")));
      action->setToolTip(QString(verb).remove(QLatin1Char('&')) + QLatin1Char(' ') + text);
    };
  };
  connect(document_->undoStack(), &QUndoStack::undoTextChanged, undo, keepShort(undo, tr("&Undo")));
  connect(document_->undoStack(), &QUndoStack::redoTextChanged, redo, keepShort(redo, tr("&Redo")));

  toolbar->addAction(open);
  toolbar->addSeparator();
  toolbar->addWidget(new QLabel(tr(" Method: ")));
  toolbar->addWidget(methodSelector_);
  toolbar->addSeparator();
  toolbar->addAction(tr("Fit"), this, [this] { graph_->fitToWindow(); });
  // The graph's scale, as a percentage.
  auto* zoom = new QLabel;
  zoom->setObjectName("zoomLevel");
  zoom->setAccessibleName(tr("Zoom"));
  zoom->setToolTip(tr("The graph's scale (Ctrl+= / Ctrl+- to zoom, Ctrl+0 to fit)"));
  zoom->setMinimumWidth(zoom->fontMetrics().horizontalAdvance(QStringLiteral("8888%")) + 8);
  zoom->setAlignment(Qt::AlignCenter);
  toolbar->addWidget(zoom);
  connect(graph_, &GraphView::zoomChanged, zoom,
          [zoom](double scale) {
            // Below 1% (a whole large method fitted) two digits: "0.14%", not "0%".
            const double percent = scale * 100;
            zoom->setText((percent < 1 ? QString::number(percent, 'g', 2) : QString::number(qRound(percent))) + "%");
          });
  toolbar->addSeparator();
  // Current / As loaded / Diff: a segmented switch in the tool bar and the
  // View menu.
  auto* viewMenu = menuBar()->addMenu(tr("&View"));
  graphModes_ = new QActionGroup(this);
  const struct {
    GraphMode mode;
    QString text, name, tip;
    Qt::Key key;
  } modes[] = {
      {GraphMode::Current, tr("Current"), "viewCurrent", tr("The program with your edits"), Qt::Key_1},
      {GraphMode::AsLoaded, tr("As loaded"), "viewAsLoaded", tr("The program as the file has it (read-only)"), Qt::Key_2},
      {GraphMode::Diff, tr("Diff"), "viewDiff", tr("Your edits' changes against the file, marked on the graph"), Qt::Key_3},
  };
  for (const auto& m : modes) {
    auto* action = new QAction(m.text, graphModes_);
    action->setObjectName(m.name);
    action->setCheckable(true);
    action->setChecked(m.mode == graphMode_);
    action->setToolTip(m.tip);
    action->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | m.key));
    connect(action, &QAction::triggered, this, [this, mode = m.mode] { setGraphMode(mode); });
    toolbar->addAction(action);
    viewMenu->addAction(action);
  }
  auto* findField = new FindField;
  findField->escaped = [this] { graph_->canvas()->setFocus(Qt::ShortcutFocusReason); };
  findField_ = findField;
  findField_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  findField_->setObjectName("findField");
  findField_->setAccessibleName(tr("Find"));
  findField_->setPlaceholderText(tr("Find operator, #instruction, %value (Ctrl+F)"));
  findField_->setToolTip(tr("Operator, backend or tensor names; #12 is instruction 12 and %12 value 12, also inside "
                            "closed groups. Enter or F3: next match; Shift+F3: previous."));
  findField_->setClearButtonEnabled(true);
  findField_->setMaximumWidth(320);
  findField_->setMinimumWidth(110);
  toolbar->addWidget(findField_);
  // Says what Find found: "2 of 5", "Not found".
  findStatus_ = new QLabel;
  findStatus_->setObjectName("findStatus");
  findStatus_->setAccessibleName(tr("Find status"));
  // As wide as its text (none until Find runs): the Find field beside it
  // gives up the room, so the tool bar's other controls keep theirs.
  findStatus_->setContentsMargins(6, 0, 6, 0);
  toolbar->addWidget(findStatus_);
  connect(graph_, &GraphView::findMatchChanged, this, [this](int index, int count) {
    // No current match (after a reload, the selection is elsewhere): the count.
    // Closed groups are one match each, for every instruction they hide
    // that matches: the status says how many instructions match in all
    // ("1 of 64 places · 802 instructions"), never a count of places alone
    // read as one of instructions.
    const int instructions = graph_->findInstructionCount();
    const QString places = instructions > 0 ? tr(" places") : QString();
    QString text;
    if (count > 0 && index < 0)
      text = instructions > 0 ? countText(count, tr("place"), tr("places")) : countText(count, tr("match"), tr("matches"));
    else if (count > 0) text = tr("%1 of %2%3").arg(index + 1).arg(count).arg(count == 1 && instructions > 0 ? tr(" place") : places);
    else text = findField_->text().trimmed().isEmpty() ? QString() : tr("Not found");
    if (count > 0 && instructions > 0) text += tr(" · %1").arg(countText(instructions, tr("instruction"), tr("instructions")));
    findStatus_->setText(text);
    findStatus_->setToolTip(count > 0 && instructions > 0
                                ? tr("A closed group is one place for all its matching instructions; open the groups "
                                     "(View > Open All Groups) to step through each instruction")
                                : QString());
    findStatus_->setStyleSheet(count == 0 && !findField_->text().trimmed().isEmpty() ? QStringLiteral("color: #b00020;")
                                                                                      : QString());
  });
  // Typing selects the best match; the first Enter after it stays there (Find
  // "layer 7", Enter: the group "layer 7", not the next match), later ones step.
  connect(findField_, &QLineEdit::returnPressed, this, [this] {
    const bool step = findEntered_ && graph_->findMatchCount() > 0 && graph_->findCurrentIndex() >= 0;
    findEntered_ = true;
    if (step) graph_->findNext();
    else graph_->find(findField_->text());
  });
  connect(findField_, &QLineEdit::textChanged, this, [this](const QString& text) {
    findEntered_ = false;
    graph_->find(text);
  });
  // Find searches the graph: its zoom and next/previous keys work while the
  // Find box has the focus too (bound to the box alone, so never ambiguous).
  const std::pair<QKeySequence, std::function<void()>> graphKeys[] = {
      {QKeySequence(Qt::CTRL | Qt::Key_Equal), [this] { graph_->zoomIn(); }},
      {QKeySequence(Qt::CTRL | Qt::Key_Plus), [this] { graph_->zoomIn(); }},
      {QKeySequence(Qt::CTRL | Qt::Key_Minus), [this] { graph_->zoomOut(); }},
      {QKeySequence(Qt::CTRL | Qt::Key_0), [this] { graph_->fitToWindow(); }},
      {QKeySequence(Qt::Key_F3), [this] { graph_->findNext(); }},
      {QKeySequence(Qt::SHIFT | Qt::Key_F3), [this] { graph_->findPrevious(); }},
  };
  for (const auto& [key, action] : graphKeys) {
    auto* shortcut = new QShortcut(key, findField_);
    shortcut->setContext(Qt::WidgetShortcut);
    connect(shortcut, &QShortcut::activated, this, action);
  }
  // The View menu offers what the graph's keys do. Those keys belong to the
  // focused view (the graph and the timeline share Ctrl+= and Ctrl+-), so each
  // item holds its key only while the menu itself has the focus (a widget
  // shortcut: never ambiguous with the views' own); the menu still shows the
  // key beside the item, and screen readers read it as the item's shortcut,
  // not as part of its name.
  viewMenu->addSeparator();
  auto menuKey = [](QAction* action, const QKeySequence& key) {
    action->setShortcut(key);
    action->setShortcutContext(Qt::WidgetShortcut);
    return action;
  };
  menuKey(viewMenu->addAction(tr("Zoom &In"), this, [this] { graph_->zoomIn(); }), QKeySequence(Qt::CTRL | Qt::Key_Equal))
      ->setObjectName("zoomInAction");
  menuKey(viewMenu->addAction(tr("Zoom &Out"), this, [this] { graph_->zoomOut(); }), QKeySequence(Qt::CTRL | Qt::Key_Minus))
      ->setObjectName("zoomOutAction");
  menuKey(viewMenu->addAction(tr("Fit to &Window"), this, [this] { graph_->fitToWindow(); }), QKeySequence(Qt::CTRL | Qt::Key_0))
      ->setObjectName("fitAction");
  viewMenu->addSeparator();
  auto* findAction = viewMenu->addAction(tr("&Find..."));
  findAction->setObjectName("findAction");
  findAction->setShortcut(QKeySequence::Find);
  connect(findAction, &QAction::triggered, this, [this] {
    findField_->setFocus();
    findField_->selectAll();
  });
  menuKey(viewMenu->addAction(tr("Find &Next"), this, [this] { graph_->findNext(); }), QKeySequence(Qt::Key_F3))
      ->setObjectName("findNextAction");
  menuKey(viewMenu->addAction(tr("Find &Previous"), this, [this] { graph_->findPrevious(); }), QKeySequence(Qt::SHIFT | Qt::Key_F3))
      ->setObjectName("findPreviousAction");
  viewMenu->addSeparator();
  auto* legend = viewMenu->addAction(tr("Show &Legend"));
  legend->setObjectName("showLegendAction");
  legend->setCheckable(true);
  legend->setChecked(true);
  connect(legend, &QAction::toggled, graph_, &GraphView::setLegendShown);
  auto* overview = viewMenu->addAction(tr("Show O&verview"));
  overview->setObjectName("showOverviewAction");
  overview->setCheckable(true);
  overview->setChecked(true);
  overview->setToolTip(tr("The small map of the whole graph, shown while part of it is out of sight"));
  connect(overview, &QAction::toggled, graph_, &GraphView::setOverviewShown);
  viewMenu->addSeparator();
  auto* openAll = viewMenu->addAction(tr("Open &All Groups"), this, [this] { graph_->expandAll(); });
  openAll->setObjectName("openAllGroupsAction");
  auto* closeAll = viewMenu->addAction(tr("&Close All Groups"), this, [this] { graph_->collapseAll(); });
  closeAll->setObjectName("closeAllGroupsAction");
  connect(viewMenu, &QMenu::aboutToShow, this, [this, openAll, closeAll] {
    openAll->setEnabled(graph_->hasGroups());
    closeAll->setEnabled(graph_->hasGroups());
  });

  auto* runMenu = menuBar()->addMenu(tr("&Run"));
  auto* runOnce = runMenu->addAction(tr("Run &Once"), QKeySequence(Qt::CTRL | Qt::Key_R), this, [this] {
    bottomTabs_->setCurrentWidget(outputs_);
    if (!outputs_->runOnce()) showMethodStatus(document_->currentMethodIndex(), outputs_->lastError(), 5000);
  });
  runOnce->setObjectName("runOnceAction");
  runOnce->setToolTip(tr("Execute the method once and show its outputs (Ctrl+R)"));

  buildProfiling(toolbar);
  viewMenu->addSeparator();
  for (auto* dock : findChildren<QDockWidget*>()) viewMenu->addAction(dock->toggleViewAction());
}

void MainWindow::resizeEvent(QResizeEvent* event) {
  QMainWindow::resizeEvent(event);
  fitLongNamesToWidth();
}

// A long method name takes the room a wide window has: the status bar's
// method (280 px at 1000 px, a third of the window from there) and the tool
// bar's Method box (10 characters at 1000 px, up to 40 at 1600 px). At 1600
// px both cut a 70-character name with half the bar empty.
void MainWindow::fitLongNamesToWidth() {
  if (statusMethod_ == nullptr || methodSelector_ == nullptr) return;
  fitStatusCounts();
  statusMethod_->setMaximumWidth(std::max(280, width() / 3));
  methodSelector_->setMinimumContentsLength(std::clamp((width() - 1000) / 20 + 10, 10, 40));
}

bool MainWindow::openFile(const QString& file) {
  if (!confirmDiscard()) return false;
  // A message about the file shown before ("Profiled forward · ...") does
  // not stay over the next one's name and counts.
  showStatus(QString());
  QString error;
  // A .ptd (File > Open, a drop, Open Recent) opens the program beside it,
  // as the command line does.
  const QString path = programForFile(file, &error);
  if (path.isEmpty()) {
    showLoadError(error);
    return false;
  }
  if (!document_->open(path, &error)) {
    // A file that is gone or unreadable leaves the recent list.
    if (!QFileInfo(path).isFile()) removeRecentFile(path);
    showLoadError(error);
    return false;
  }
  addRecentFile(QFileInfo(path).absoluteFilePath());
  watch(path);
  resetDocumentView();
  return true;
}

bool MainWindow::openDemo() {
  if (!confirmDiscard()) return false;
  showStatus(QString());
  QString error;
  if (!document_->openDemo(&error)) {
    showLoadError(error);
    return false;
  }
  watch(QString());
  resetDocumentView();
  return true;
}

void MainWindow::nameControls() {
  // Every control has an accessible name, the one a screen reader says and
  // tests find it by: the panel's title for views, the label beside it for
  // fields; widgets that show text (buttons, check boxes) are named by it.
  const std::pair<const char*, QString> names[] = {
      {"programTree", tr("Program")},           {"properties", tr("Properties")},
      {"valuesView", tr("Values")},             {"transfersView", tr("Transfers")},
      {"diagnosticsView", tr("Diagnostics")},
      {"summary", tr("Info")},               {"outputsTable", tr("Outputs")},
      {"changes", tr("Changes")},
      {"methodSelector", tr("Method")},         {"deviceFilter", tr("Device filter")},
      {"valuesFilter", tr("Filter values")},    {"overlayMetric", tr("Graph colours")},
      {"linkProfile", tr("Link profile")},      {"linkHostMemory", tr("Host memory")},
      {"bottomTabs", tr("Details")},            {"timeline", tr("Timeline")},
      {"memoryPlan", tr("Memory plan")},        {"passOptions", tr("Pass options")},
      {"graphView", tr("Graph view")},
  };
  for (const auto& [object, name] : names)
    for (auto* widget : findChildren<QWidget*>(QString::fromLatin1(object)))
      if (widget->accessibleName().isEmpty()) widget->setAccessibleName(name);
  // Tab leaves every table and tree for the next control (arrows move
  // inside): no panel traps a keyboard user.
  for (auto* view : findChildren<QAbstractItemView*>()) view->setTabKeyNavigation(false);
  // A scroll area that only holds other controls is no Tab stop of its own
  // (screen readers read such a stop as an unnamed "filler"); its
  // controls are.
  for (auto* area : findChildren<QScrollArea*>())
    if (area->widget() != nullptr) area->setFocusPolicy(Qt::NoFocus);
  // The rest: from the object name ("iterationChooser" → "Iteration chooser");
  // every other Tab stop too.
  for (auto* widget : findChildren<QWidget*>()) {
    const bool control = qobject_cast<QAbstractItemView*>(widget) || qobject_cast<QComboBox*>(widget) ||
                         qobject_cast<QLineEdit*>(widget) || qobject_cast<QAbstractSpinBox*>(widget) ||
                         // (buttons, check boxes and tab bars are read by their own words)
                         ((widget->focusPolicy() & Qt::TabFocus) != 0 && !qobject_cast<QAbstractButton*>(widget) &&
                          !qobject_cast<QTabBar*>(widget));
    if (!control || !widget->accessibleName().isEmpty() || widget->objectName().isEmpty()) continue;
    QString words = widget->objectName();
    words.replace(QRegularExpression(QStringLiteral("([a-z0-9])([A-Z])")), QStringLiteral("\\1 \\2"));
    words = words.toLower();
    words[0] = words[0].toUpper();
    widget->setAccessibleName(words);
  }
}

void MainWindow::resetDocumentView() {
  // What belongs to the document shown before does not carry over to
  // another one: the Find text and its marks, the Values filters, the overlay mode, the zoom and
  // scroll position (the new picture starts from its initial view), the
  // graph mode. A reload of the same file keeps the Find text (its status
  // is found again in the new picture), the overlay and the mode; its
  // picture starts from the initial view (reloadFromDisk).
  findField_->clear();
  graph_->find(QString());
  // The Values filter too: another file's table under the last one's filter
  // read as a program without values.
  valuesFilter_->clear();
  deviceFilter_->setCurrentIndex(0);
  // Nor its selection and scroll positions: the new file's tables start at
  // their top with nothing selected (Transfers kept row #10 current and
  // selected instruction #10 of the new program, scrolled to its middle).
  selection_->clear();
  for (QTableView* table : {valuesView_, transfersView_, diagnosticsView_}) {
    table->setCurrentIndex(QModelIndex());
    table->clearSelection();
    table->scrollToTop();
  }
  if (overlayMetric_) setOverlayMetric(GraphView::OverlayMetric::Placement);
  // The CUDA graph replay is a setting of the methods of the file shown:
  // another file's method of the same name does not inherit it.
  links_->clearCudaGraph();
  setGraphModeChecked(GraphMode::Current);
  wasModified_ = false;
  graph_->clear();
  showGraph();
}

void MainWindow::showOpenDialog() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open ExecuTorch program"), QString(),
                                                    tr("ExecuTorch programs (*.pte);;All files (*)"));
  if (!path.isEmpty()) openFile(path);
}

void MainWindow::reportError(const QString& title, const QString& message) {
  lastError_ = message;
  showStatus(title + ": " + message, 15000);
  if (dialogsAllowed()) QMessageBox::warning(this, title, message);
}

void MainWindow::showMethodStatus(int method, const QString& message, int milliseconds, const QString& detail) {
  showStatus(message, milliseconds, detail);
  statusAboutMethod_ = message.isEmpty() ? -1 : method;
}

void MainWindow::showStatus(const QString& message, int milliseconds, const QString& detail) {
  statusAboutMethod_ = -1;
  statusMessageTimer_->stop();
  statusMessage_->setText(message);
  statusMessage_->setToolTip(plainToolTip(detail.isEmpty() ? message : detail));
  statusMessage_->setVisible(!message.isEmpty());
  statusFile_->setVisible(message.isEmpty());
  // A message takes the counts' room while it shows in a small window (they
  // are one glance at the Summary tab away): at 1000 px it was cut to
  // "Profiled forward · host emulation · pagea…". A wide window keeps them.
  fitStatusCounts();
  if (!message.isEmpty() && milliseconds > 0) statusMessageTimer_->start(milliseconds);
}

void MainWindow::fitStatusCounts() {
  // The counts give way to a message or a profile's progress in a small
  // window: beside the progress, Cancel and the GPU line, the method was cut
  // to "me…rd" at 1000 px (walkthrough 21), and the counts are one glance at
  // the Info tab away.
  // A profile's progress takes them at every width: at 1600 px it was cut
  // ("forward: measuring 19831/100000, instr…") beside the whole counts
  // (walkthrough 22); it is as wide as a fifth of the window allows.
  const bool profiling = profileStatus_ != nullptr && !profileStatus_->isHidden();
  statusCounts_->setVisible(!profiling && (statusMessage_->isHidden() || width() >= kWideWindow));
  if (profileLabel_ != nullptr) {
    const int character = profileLabel_->fontMetrics().horizontalAdvance(QLatin1Char('n'));
    profileLabel_->setFixedWidth(std::clamp(width() * 2 / 5, 34 * character, 72 * character));
  }
}

QString MainWindow::statusMessage() const { return statusMessage_->isVisibleTo(this) ? statusMessage_->text() : QString(); }

void MainWindow::showLoadError(const QString& message) { showError(tr("Cannot open program"), message); }

void MainWindow::showError(const QString& title, const QString& raw) {
  // One line, nothing invisible: a path with a line break split the message.
  const QString message = printableText(raw);
  lastError_ = message;
  showStatus(message, 10000);
  if (dialogsAllowed()) QMessageBox::warning(this, title, message);
}

void MainWindow::addRecentFile(const QString& path) {
  QSettings settings;
  QStringList files = settings.value("recentFiles").toStringList();
  files.removeAll(path);
  files.prepend(path);
  while (files.size() > kMaxRecentFiles) files.removeLast();
  settings.setValue("recentFiles", files);
  rebuildRecentMenu();
}

void MainWindow::removeRecentFile(const QString& path) {
  QSettings settings;
  QStringList files = settings.value("recentFiles").toStringList();
  if (files.removeAll(QFileInfo(path).absoluteFilePath()) + files.removeAll(path) == 0) return;
  settings.setValue("recentFiles", files);
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  recentMenu_->clear();
  // Files that are gone are dropped from the list, not offered.
  QSettings settings;
  const QStringList stored = settings.value("recentFiles").toStringList();
  QStringList files;
  for (const QString& f : stored)
    if (QFileInfo(f).isFile() && !files.contains(f)) files << f;
  if (files != stored) settings.setValue("recentFiles", files);
  for (const QString& f : files) {
    // The file name first (what a user recognises), the folder after it;
    // "&" in a name is shown, not taken for a mnemonic.
    const QFileInfo info(f);
    QString text = QString("%1  —  %2").arg(info.fileName(), info.absolutePath());
    text.replace('&', QStringLiteral("&&"));
    auto* action = recentMenu_->addAction(text, this, [this, f] { openFile(f); });
    action->setToolTip(plainToolTip(f));
    action->setData(f);
  }
  recentMenu_->setEnabled(!files.isEmpty());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const auto urls = event->mimeData()->urls();
  if (urls.isEmpty() || !urls.first().isLocalFile()) return;
  const QString path = urls.first().toLocalFile();
  if (path.endsWith(".etdp", Qt::CaseInsensitive)) importEtdump(path);  // onto the program it was recorded on
  else openFile(path);
}

void MainWindow::refreshProgram() {
  // Profiles describe the file they were measured on: another file drops
  // them (a reload of the same file keeps them, to compare against).
  const QString identity = !document_->hasProgram() ? QString() : document_->isDemo() ? QStringLiteral("<demo>") : document_->path();
  // Save As makes the window the saved file: the profiles of the program
  // before stay, said to be measured before it changed (they were dropped
  // without a word while Forget Profiles stayed enabled).
  if (savingAs_ && profiledPath_ == savingFrom_) profiledPath_ = identity;
  if (identity != profiledPath_ && (profiler_->latest() || profiler_->isRunning())) {
    if (profiler_->isRunning()) showStatus(tr("Profile stopped: another program was opened"), 10000);
    discardingProfile_ = profiler_->isRunning();
    profiler_->clear();
    transfersModel_->clearProfiles();
    timeline_->clear();
  }
  methodSelector_->clear();
  if (!document_->hasProgram()) {
    setWindowTitle("ptescope");
    summary_->setPlainText(tr("No program loaded.\n\nUse File > Open to inspect an ExecuTorch program (.pte), "
                              "or File > Open Demo Program."));
    refreshStatus();
    return;
  }
  for (const auto& m : document_->program().methods()) methodSelector_->addItem(QString::fromStdString(m.displayName()));
  updateTitle();
  QString summary = QString::fromStdString(
      report::infoText(document_->program(), document_->loaded().file, document_->loaded().warnings));
  if (document_->isModified()) summary.prepend(tr("Edited (not saved): the summary shows the program with your edits.\n\n"));
  summary_->setPlainText(summary);
  // The top level open (expandToDepth would close what the user opened
  // below it: every edit closed the method's Delegates, walkthrough 23).
  for (int r = 0; r < tree_->model()->rowCount(); ++r) tree_->expand(tree_->model()->index(r, 0));
  refreshMethod();
}

void MainWindow::refreshMethod() {
  const int index = document_->currentMethodIndex();
  const Method* shown = document_->currentMethod();
  if (links_) links_->setShownMethod(shown ? QString::fromStdString(shown->displayName()) : QString());
  // The first edit shows what it changed.
  if (document_->isModified() && !wasModified_ && graphMode_ == GraphMode::Current) setGraphModeChecked(GraphMode::Diff);
  wasModified_ = document_->isModified();
  showGraph();
  if (index >= 0 && methodSelector_->currentIndex() != index) methodSelector_->setCurrentIndex(index);
  // Device filter: every device the method's tensors use.
  const QString previous = deviceFilter_->currentData().toString();
  deviceFilter_->blockSignals(true);
  deviceFilter_->clear();
  deviceFilter_->addItem(tr("all devices"), QString());
  if (const Method* method = document_->currentMethod()) {
    auto summary = analysis::summarizeMethod(*method);
    for (const auto& [device, count] : summary.tensors_by_device)
      deviceFilter_->addItem(QString("%1 (%2)").arg(QString::fromStdString(device), num(qint64(count))), QString::fromStdString(device));
  }
  const int keep = deviceFilter_->findData(previous);
  deviceFilter_->setCurrentIndex(keep >= 0 ? keep : 0);
  deviceFilter_->blockSignals(false);
  valuesProxy_->setDevice(deviceFilter_->currentData().toString());
  valuesView_->resizeColumnsToContents();
  transfersView_->resizeColumnsToContents();
  applyProfiles();
  tree_->viewport()->update();
  refreshStatus();
}

void MainWindow::showGraph() {
  advisorPreview_ = false;
  const int index = document_->currentMethodIndex();
  if (!document_->hasProgram() || index < 0) {
    graph_->clear();
    return;
  }
  switch (graphMode_) {
    case GraphMode::Current: graph_->setMethod(document_->programSnapshot(), index); break;
    case GraphMode::AsLoaded: graph_->setMethod(document_->loadedSnapshot(), index); break;
    case GraphMode::Diff: graph_->setMethod(document_->programSnapshot(), index, document_->methodChanges(index)); break;
  }
  graph_->setDiffNote(diffNote());
  // The other panels follow the program with the edits: the "as loaded"
  // graph says so (Values, Transfers and the status line read as the file's).
  graph_->setViewNote(viewNote());
  updateGraphMeasurements();
}

QString MainWindow::viewNote() const {
  QStringList notes;
  // Options the passes refuse change nothing yet: said over the graph in
  // every view (the diff banner read "no changes in this method" as if the
  // edit were harmless; walkthrough 22).
  if (const QString refused = document_->pipelineError(); !refused.isEmpty())
    notes << tr("The options as set are refused (%1): shown is the last program the passes accepted").arg(refused);
  // The other panels follow the program with the edits: the "as loaded"
  // graph says so (Values, Transfers and the status line read as the file's).
  if (graphMode_ == GraphMode::AsLoaded && document_->isModified())
    notes << tr("The file as loaded (read-only); the panels and the status line show the program with your edits");
  return notes.join(QStringLiteral(" \u00b7 "));
}

void MainWindow::showSelectableGraph() {
  // The panels number instructions and values as the program with the edits
  // does; the "as loaded" graph numbers them as the file does.
  if (graphMode_ == GraphMode::AsLoaded) setGraphMode(document_->isModified() ? GraphMode::Diff : GraphMode::Current);
}

void MainWindow::setGraphModeChecked(GraphMode mode) {
  graphMode_ = mode;
  const char* names[] = {"viewCurrent", "viewAsLoaded", "viewDiff"};
  for (auto* action : graphModes_->actions()) action->setChecked(action->objectName() == names[int(mode)]);
}

void MainWindow::setGraphMode(GraphMode mode) {
  if (mode == graphMode_) return;
  setGraphModeChecked(mode);
  if (mode == GraphMode::AsLoaded) properties_->showNothing();
  showGraph();
  refreshStatus();
}

void MainWindow::refreshStatus() {
  if (!document_->hasProgram()) {
    statusFile_->setText(tr("No program"));
    statusMethod_->clear();
    statusCounts_->clear();
    return;
  }
  // One line: a name from the file system may hold a line break (shown as
  // \x0A, as the CLI prints it).
  statusFile_->setText(document_->isDemo() ? tr("Demo program (built in)") : printableText(document_->path()));
  const Method* method = document_->currentMethod();
  statusMethod_->setText(method ? tr("method %1").arg(QString::fromStdString(method->displayName())) : QString());
  if (method != nullptr) {
    auto s = analysis::summarizeMethod(*method);
    statusCounts_->setText(tr("%1, %2, %3, copies: %4 h2d / %5 d2h")
                               .arg(countText(qint64(s.instructions), tr("instruction")), countText(qint64(s.values), tr("value")),
                                    countText(qint64(s.delegate_calls), tr("delegate call")), num(qint64(s.h2d_copies)),
                                    num(qint64(s.d2h_copies))));
  }
}

bool MainWindow::showMethod(const QString& name) {
  for (int m = 0; m < document_->methodCount(); ++m)
    if (QString::fromStdString(document_->program().methods()[size_t(m)].displayName()) == name) {
      document_->setCurrentMethod(m);
      return true;
    }
  lastError_ = tr("no method named '%1' in %2").arg(name, document_->displayName());
  return false;
}

bool MainWindow::showPanel(const QString& name) {
  // In the tabs' order (the Advisor's was missing: "summary" showed the
  // Advisor and "outputs" the program's facts); "summary" is the Info tab's
  // name before it was renamed.
  static const QStringList names{"values", "transfers", "timeline", "memory", "diagnostics", "changes", "advisor", "info", "outputs"};
  const QString wanted = name.toLower() == QLatin1String("summary") ? QStringLiteral("info") : name.toLower();
  const int index = int(names.indexOf(wanted));
  if (index < 0 || index >= bottomTabs_->count()) {
    lastError_ = tr("no panel named '%1' (one of: %2)").arg(name, names.join(", "));
    return false;
  }
  bottomTabs_->setCurrentIndex(index);
  return true;
}

void MainWindow::populateInstructionMenu(QMenu* menu, size_t instruction) {
  const analysis::Dataflow* dataflow = document_->currentDataflow();
  if (dataflow == nullptr || instruction >= dataflow->instructionCount()) return;
  const int delegate = dataflow->instructions()[instruction].delegate_index;
  if (delegate < 0) return;
  menu->addSection(tr("Target device of delegate %1").arg(delegate));
  addTargetDeviceActions(menu, document_->currentMethodIndex(), delegate);
  menu->addSeparator();
}

void MainWindow::addTargetDeviceActions(QMenu* menu, int method, int delegate) {
  const auto current = document_->delegateTarget(method, delegate);
  menu->setToolTipsVisible(true);
  for (const QString& choice : PassOptionsPanel::deviceChoices()) {
    std::optional<Device> device;
    if (choice != "none") device = parseDeviceSpec(choice.toStdString()).value();
    const QString text = choice == "cpu" ? tr("cpu (not valid for a device backend)") : choice;
    auto* action = menu->addAction(text, this, [this, method, delegate, device] {
      document_->setDelegateTarget(method, delegate, device);
    });
    action->setToolTip(PassOptionsPanel::deviceChoiceMeaning(choice));
    action->setStatusTip(action->toolTip());
    action->setCheckable(true);
    action->setChecked(current == device);
  }
}

void MainWindow::updateTitle() {
  if (!document_->hasProgram()) {
    setWindowTitle("ptescope");
    return;
  }
  // Qt shows "*" for [*] when the window is modified.
  setWindowTitle(document_->displayName() + "[*] — ptescope");
  setWindowModified(document_->hasUnsavedEdits());
}

bool MainWindow::confirmDiscard() {
  if (!document_->hasProgram() || !document_->hasUnsavedEdits() || !dialogsAllowed()) return true;
  QMessageBox box(QMessageBox::Question, tr("Save edits?"),
                  tr("The edits to %1 are not saved.").arg(document_->displayName()),
                  QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
  box.setInformativeText(tr("Save them as a new program before you go on?"));
  box.setDefaultButton(QMessageBox::Save);
  box.setEscapeButton(QMessageBox::Cancel);
  switch (box.exec()) {
    case QMessageBox::Save: return showSaveDialog();
    case QMessageBox::Discard: return true;
    default: return false;
  }
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  if (docksSized_) return;
  docksSized_ = true;
  // Sized when made, the docks follow their contents' size hints until the
  // window is first laid out on screen: size them again then, once.
  QTimer::singleShot(0, this, [this] {
    sizeDocksToWindow();
    orderDockTabBars();
  });
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (confirmDiscard()) {
    event->accept();
  } else {
    event->ignore();
  }
}

bool MainWindow::isLoadedFile(const QString& path) const {
  return document_->hasProgram() && !document_->isDemo() && QFileInfo(path) == QFileInfo(document_->path());
}

bool MainWindow::confirmOverwrite(const QString& path) {
  if (!dialogsAllowed()) return true;
  const bool loaded = isLoadedFile(path);
  QMessageBox box(QMessageBox::Question, loaded ? tr("Overwrite the loaded file?") : tr("Replace the file?"),
                  loaded ? tr("%1 is the file this program was loaded from. Overwrite it?").arg(path)
                         : tr("%1 already exists. Replace it?").arg(path),
                  QMessageBox::Yes | QMessageBox::No, this);
  box.setObjectName(QStringLiteral("confirmOverwrite"));
  box.setTextFormat(Qt::PlainText);
  box.setDefaultButton(QMessageBox::No);
  return box.exec() == QMessageBox::Yes;
}

bool MainWindow::saveTo(const QString& path, bool overwriteConfirmed) {
  QString error;
  bool overwrite = false;
  if (isLoadedFile(path)) {
    if (!overwriteConfirmed && !confirmOverwrite(path)) return false;
    overwrite = dialogsAllowed();
  }
  savingAs_ = true;
  savingFrom_ = document_->isDemo() ? QStringLiteral("<demo>") : document_->path();
  const bool saved = document_->saveAs(path, overwrite, &error);
  savingAs_ = false;
  if (!saved) {
    lastError_ = error;
    showStatus(error, 10000);
    if (dialogsAllowed()) QMessageBox::warning(this, tr("Cannot save"), error);
    return false;
  }
  // The window now shows the saved file (Document::saveAs): watch it, not
  // the file it was loaded from; what is on disk is this program.
  watch(document_->path());
  fileWatch_->acknowledge();
  addRecentFile(QFileInfo(path).absoluteFilePath());
  // Where its data went (a .ptd copied beside it), or why it is not there.
  const QStringList notes = document_->saveNotes();
  showStatus(notes.isEmpty() ? tr("Saved %1").arg(path) : tr("Saved %1 · %2").arg(path, notes.join(QStringLiteral(" · "))),
             notes.isEmpty() ? 5000 : 15000);
  return true;
}

QString MainWindow::askSavePath(const QString& title, const QString& filter, const QString& suffix,
                                const QString& proposedName) {
  // A dialog of our own rather than getSaveFileName: it appends the default
  // suffix ("edited" saves as "edited.pte") before it asks about overwriting.
  QFileDialog dialog(this, title);
  dialog.setAcceptMode(QFileDialog::AcceptSave);
  dialog.setFileMode(QFileDialog::AnyFile);
  dialog.setNameFilter(filter);
  dialog.setDefaultSuffix(suffix);
  dialog.setObjectName(QStringLiteral("saveDialog"));
  // One question before a file is replaced, ours (Qt's dialog would ask, and
  // then saveTo() again for the loaded file).
  dialog.setOption(QFileDialog::DontConfirmOverwrite);
  const QString folder = document_->hasProgram() && !document_->isDemo()
                             ? QFileInfo(document_->savedPath().isEmpty() ? document_->path() : document_->savedPath()).absolutePath()
                             : QString();
  if (!folder.isEmpty()) dialog.setDirectory(folder);
  if (!proposedName.isEmpty()) dialog.selectFile(proposedName);
  for (;;) {
    if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty()) return QString();
    QString path = dialog.selectedFiles().first();
    // Some platform dialogs ignore the default suffix.
    if (!suffix.isEmpty() && QFileInfo(path).suffix().isEmpty()) path += "." + suffix;
    if (!QFileInfo::exists(path) || confirmOverwrite(path)) return path;
    dialog.selectFile(QFileInfo(path).fileName());
  }
}

bool MainWindow::confirmSaveWithErrors() {
  if (!dialogsAllowed()) return true;
  const auto findings = analysis::lintProgram(document_->program());
  QStringList errors;
  for (const auto& d : findings)
    if (d.severity == analysis::Severity::Error)
      errors << QString::fromStdString(d.id + " " + d.location() + ": " + d.message);
  if (errors.isEmpty()) return true;
  QMessageBox box(QMessageBox::Warning, tr("Save a program with errors?"),
                  tr("The program has %1: the runtime may refuse it or compute wrong results.")
                      .arg(countText(errors.size(), tr("error-level finding"))),
                  QMessageBox::Save | QMessageBox::Cancel, this);
  box.setTextFormat(Qt::PlainText);
  box.setObjectName(QStringLiteral("saveWithErrors"));
  box.setInformativeText(tr("See the Diagnostics panel for the fix of each."));
  box.setDetailedText(errors.join("\n"));
  box.setDefaultButton(QMessageBox::Cancel);
  return box.exec() == QMessageBox::Save;
}

bool MainWindow::showSaveDialog() {
  if (!document_->hasProgram()) return false;
  if (!confirmSaveWithErrors()) return false;
  QString proposed = document_->displayName();
  if (document_->isDemo() && document_->savedPath().isEmpty()) proposed = QStringLiteral("demo-edited.pte");
  const QString path = askSavePath(tr("Save program as"), tr("ExecuTorch programs (*.pte)"), QStringLiteral("pte"), proposed);
  return !path.isEmpty() && saveTo(path, true);
}

bool MainWindow::exportReportTo(const QString& path) {
  QString error;
  if (!document_->exportReport(path, &error)) {
    lastError_ = error;
    if (dialogsAllowed()) QMessageBox::warning(this, tr("Cannot export the report"), error);
    return false;
  }
  showStatus(tr("Wrote the pass report to %1").arg(path), 8000);
  return true;
}

void MainWindow::showExportReportDialog() {
  if (!document_->hasProgram()) return;
  const QString path = askSavePath(tr("Export pass report"), tr("JSON (*.json)"), QStringLiteral("json"));
  if (!path.isEmpty()) exportReportTo(path);
}

}  // namespace ptescope::ui

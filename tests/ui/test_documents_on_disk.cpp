// Issue 27, part 3: the app's documents and the files under them. Save As
// never overwrites the loaded file silently; a save that fails keeps the
// edits and the unsaved state and says why (core's writeFileAtomically
// message); a file re-exported while open (also by an atomic rename) is
// noticed: unedited, it is reloaded at once; with unsaved edits a bar offers
// Reload and nothing changes until it is chosen; a reload keeps the edits
// and the undo history; a file that is gone is said so.
#include <QtTest>

#include <QAction>

#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QUndoStack>

#include <unistd.h>

#include "support/BudgetPrograms.h"
#include "support/TestSupport.h"
#include "ui/document/Document.h"
#include "ui/document/FileChangeWatcher.h"
#include "ui/window/MainWindow.h"
#include "ui/window/ReloadBar.h"

using namespace ptescope;

namespace {

// Two small programs told apart by their input's rows: 4 and 8.
bool writeProgram(const QString& path, int rows) { return test::writeHugeInputProgram(path, uint64_t(rows) * 1024); }

int inputRows(const ui::Document& doc) {
  const auto& m = doc.loadedProgram().methods().front();
  return (*(*m.values)[size_t((*m.inputs)[0])].tensor()->sizes)[0];
}

// As a script's exporter saves: a new file renamed over the old one (the
// watched inode is replaced).
bool replaceAtomically(const QString& path, int rows) {
  const QString temporary = path + ".new";
  return writeProgram(temporary, rows) && ::rename(QFile::encodeName(temporary).constData(), QFile::encodeName(path).constData()) == 0;
}

// One undoable edit: plan the graph input (the file leaves it unplanned).
void editInputPlanning(ui::Document& doc) {
  auto options = doc.methodOptions(0);
  options.alloc_graph_input = !options.alloc_graph_input;
  doc.setMethodOptions(0, options);
  doc.waitForPipeline();
}

ui::ReloadBar* barOf(ui::MainWindow& window) { return window.reloadBar(); }

}  // namespace

class DocumentsOnDiskTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { qputenv("PTESCOPE_NO_DIALOGS", "1"); }

  void saveAsOntoTheLoadedFileIsRefusedAndKeepsTheEdits() {
    const QString path = test::tempDir() + "/input.pte";
    QVERIFY(writeProgram(path, 4));
    const auto before = test::readAll(path);
    ui::Document doc;
    ui::MainWindow window(&doc);
    QVERIFY(window.openFile(path));
    editInputPlanning(doc);
    QVERIFY(doc.hasUnsavedEdits());
    // Without a confirmation (no dialogs here) the loaded file is not written,
    // under its own name or another spelling of it.
    QVERIFY(!window.saveTo(path));
    QVERIFY2(window.lastError().contains("refusing to overwrite the input program"), qPrintable(window.lastError()));
    QVERIFY(!window.saveTo(test::tempDir() + "/./input.pte"));
    QVERIFY(test::readAll(path) == before);
    QVERIFY(doc.hasUnsavedEdits());
    QVERIFY(window.isWindowModified());
    QCOMPARE(doc.undoStack()->count(), 1);
  }

  void aFailedSaveKeepsTheEditsAndSaysWhy() {
    const QString path = test::tempDir() + "/to-save.pte";
    QVERIFY(writeProgram(path, 4));
    ui::Document doc;
    ui::MainWindow window(&doc);
    QVERIFY(window.openFile(path));
    editInputPlanning(doc);
    const auto edits = doc.edits();
    // A folder that is a file, and a place nobody may write (root included).
    const QString notAFolder = test::tempDir() + "/plain-file";
    test::writeAll(notAFolder, {1, 2, 3});
    QStringList targets{notAFolder + "/edited.pte", "/proc/ptescope-cannot-write-here.pte"};
    // A read-only folder stops everyone but root.
    const QString readOnly = test::tempDir() + "/read-only";
    QDir().mkpath(readOnly);
    QVERIFY(QFile::setPermissions(readOnly, QFile::ReadOwner | QFile::ExeOwner));
    if (::geteuid() != 0) targets << readOnly + "/edited.pte";
    for (const QString& target : targets) {
      QString direct;
      QVERIFY(!doc.saveAs(target, false, &direct));  // core's writeFileAtomically error
      QVERIFY(!direct.isEmpty());
      QVERIFY(!window.saveTo(target));
      QCOMPARE(window.lastError(), direct);
      QVERIFY2(window.lastError().contains(QFileInfo(target).fileName()) || window.lastError().contains(QFileInfo(target).path()),
               qPrintable(window.lastError()));
      QVERIFY(doc.hasUnsavedEdits());
      QVERIFY(window.isWindowModified());
      QVERIFY(doc.edits() == edits);
      QVERIFY(doc.savedPath().isEmpty());
      QCOMPARE(doc.undoStack()->count(), 1);
      QVERIFY(!QFileInfo::exists(target));
    }
    QFile::setPermissions(readOnly, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    // And a save that can succeed still does.
    QVERIFY(window.saveTo(test::tempDir() + "/saved-after-failures.pte"));
    QVERIFY(!doc.hasUnsavedEdits());
  }

  void anUneditedFileReloadsWhenReplacedOnDisk() {
    const QString path = test::tempDir() + "/re-exported.pte";
    QVERIFY(writeProgram(path, 4));
    ui::Document doc;
    ui::MainWindow window(&doc);
    QVERIFY(window.openFile(path));
    QCOMPARE(inputRows(doc), 4);
    QVERIFY(replaceAtomically(path, 8));
    QTRY_COMPARE_WITH_TIMEOUT(inputRows(doc), 8, 10000);
    QVERIFY(barOf(window)->isHidden());
    // The watch follows the new inode: a second re-export is noticed too.
    QVERIFY(replaceAtomically(path, 4));
    QTRY_COMPARE_WITH_TIMEOUT(inputRows(doc), 4, 10000);
  }

  void unsavedEditsAreKeptUntilReloadIsChosenAndReloadKeepsTheHistory() {
    const QString path = test::tempDir() + "/edited-while-changed.pte";
    QVERIFY(writeProgram(path, 4));
    ui::Document doc;
    ui::MainWindow window(&doc);
    window.show();
    QVERIFY(window.openFile(path));
    editInputPlanning(doc);
    const auto edits = doc.edits();
    QVERIFY(replaceAtomically(path, 8));
    ui::ReloadBar* bar = barOf(window);
    QTRY_VERIFY_WITH_TIMEOUT(!bar->isHidden(), 10000);
    QVERIFY2(bar->text().contains("edited-while-changed.pte changed on disk") && bar->text().contains("unsaved edits"),
             qPrintable(bar->text()));
    QCOMPARE(bar->findChild<QLabel*>("reloadBarText")->accessibleDescription(), bar->text());
    // Nothing changed yet: the program on screen and the edits are as they were.
    QCOMPARE(inputRows(doc), 4);
    QVERIFY(doc.edits() == edits);
    QCOMPARE(doc.undoStack()->count(), 1);
    // Reload: the new file, the edits applied to it, still undoable.
    auto* reload = bar->findChild<QPushButton*>("reloadBarReload");
    QVERIFY(reload->isVisibleTo(bar));
    reload->click();
    doc.waitForPipeline();
    QVERIFY(bar->isHidden());
    QCOMPARE(inputRows(doc), 8);
    QVERIFY(doc.edits() == edits);
    QVERIFY(doc.pipelineError().isEmpty());
    QCOMPARE(doc.undoStack()->count(), 1);
    QVERIFY(doc.hasUnsavedEdits());
    doc.undoStack()->undo();
    doc.waitForPipeline();
    QVERIFY(doc.edits() == passes::ProgramEdits{});
    QCOMPARE(inputRows(doc), 8);
  }

  void keepingThisVersionDismissesTheBarUntilTheNextChange() {
    const QString path = test::tempDir() + "/kept.pte";
    QVERIFY(writeProgram(path, 4));
    ui::Document doc;
    ui::MainWindow window(&doc);
    QVERIFY(window.openFile(path));
    editInputPlanning(doc);
    QVERIFY(replaceAtomically(path, 8));
    ui::ReloadBar* bar = barOf(window);
    QTRY_VERIFY_WITH_TIMEOUT(!bar->isHidden(), 10000);
    bar->findChild<QPushButton*>("reloadBarDismiss")->click();
    QVERIFY(bar->isHidden());
    QCOMPARE(inputRows(doc), 4);
    QCOMPARE(doc.undoStack()->count(), 1);
    QVERIFY(replaceAtomically(path, 4));
    QTRY_VERIFY_WITH_TIMEOUT(!bar->isHidden(), 10000);
    // File > Reload (Ctrl+Shift+R) answers it as well.
    auto* action = window.findChild<QAction*>("reloadAction");
    QVERIFY(action != nullptr);
    QCOMPARE(action->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    action->trigger();
    QVERIFY(bar->isHidden());
    QCOMPARE(doc.undoStack()->count(), 1);
  }

  void aRemovedFileIsSaidSoAndTheProgramStays() {
    const QString path = test::tempDir() + "/removed.pte";
    QVERIFY(writeProgram(path, 4));
    ui::Document doc;
    ui::MainWindow window(&doc);
    QVERIFY(window.openFile(path));
    QVERIFY(QFile::remove(path));
    ui::ReloadBar* bar = barOf(window);
    QTRY_VERIFY_WITH_TIMEOUT(!bar->isHidden(), 10000);
    QVERIFY2(bar->text().contains("deleted or moved"), qPrintable(bar->text()));
    QVERIFY(!bar->findChild<QPushButton*>("reloadBarReload")->isVisibleTo(bar));
    QVERIFY(doc.hasProgram());
    // File > Reload fails (the file is gone) and changes nothing: the bar
    // stays (walkthrough 23: it went, the window looked like a file open as
    // usual).
    window.findChild<QAction*>("reloadAction")->trigger();
    QVERIFY(!window.lastError().isEmpty());
    QVERIFY(!bar->isHidden());
    QVERIFY2(bar->text().contains("deleted or moved"), qPrintable(bar->text()));
    QVERIFY(doc.hasProgram());
    // Written again: an unedited program reloads.
    QVERIFY(writeProgram(path, 8));
    QTRY_COMPARE_WITH_TIMEOUT(inputRows(doc), 8, 10000);
  }

  // Issue 34 item 23: a file moved away and back (the same file: inode,
  // size and time as the app knows them) is not "deleted or moved" any
  // more: the bar goes, with and without unsaved edits, and the program is
  // the one on disk (nothing to reload).
  void aFileMovedAwayAndBackClearsTheBar() {
    for (const bool edited : {false, true}) {
      const QString path = test::tempDir() + (edited ? "/moved-back-edited.pte" : "/moved-back.pte");
      const QString away = path + ".away";
      QVERIFY(writeProgram(path, 4));
      ui::Document doc;
      ui::MainWindow window(&doc);
      QVERIFY(window.openFile(path));
      if (edited) editInputPlanning(doc);
      QVERIFY(::rename(QFile::encodeName(path).constData(), QFile::encodeName(away).constData()) == 0);
      ui::ReloadBar* bar = barOf(window);
      QTRY_VERIFY_WITH_TIMEOUT(!bar->isHidden(), 10000);
      QVERIFY2(bar->text().contains("deleted or moved"), qPrintable(bar->text()));
      QVERIFY(::rename(QFile::encodeName(away).constData(), QFile::encodeName(path).constData()) == 0);
      QTRY_VERIFY_WITH_TIMEOUT(bar->isHidden(), 10000);
      QCOMPARE(inputRows(doc), 4);
      QCOMPARE(doc.hasUnsavedEdits(), edited);
      QCOMPARE(doc.undoStack()->count(), edited ? 1 : 0);
      // Still watched: a later re-export is noticed.
      QVERIFY(replaceAtomically(path, 8));
      if (edited) {
        QTRY_VERIFY_WITH_TIMEOUT(!bar->isHidden(), 10000);
        QVERIFY2(bar->text().contains("changed on disk"), qPrintable(bar->text()));
      } else {
        QTRY_COMPARE_WITH_TIMEOUT(inputRows(doc), 8, 10000);
      }
    }
  }

  // The app's own write is not a change made elsewhere.
  void anAcknowledgedWriteIsNotReported() {
    const QString path = test::tempDir() + "/acknowledged.pte";
    QVERIFY(writeProgram(path, 4));
    ui::FileChangeWatcher watcher;
    QSignalSpy changed(&watcher, &ui::FileChangeWatcher::changed);
    watcher.watch(path);
    QVERIFY(!watcher.differsFromKnown());
    QVERIFY(replaceAtomically(path, 8));
    QVERIFY(watcher.differsFromKnown());
    watcher.acknowledge();
    QVERIFY(!watcher.differsFromKnown());
    QTest::qWait(ui::FileChangeWatcher::kSettleMs * 3);
    QCOMPARE(changed.count(), 0);
    QVERIFY(replaceAtomically(path, 4));
    QVERIFY(changed.wait(10000));
    QCOMPARE(changed.count(), 1);
  }
};

QTEST_MAIN(DocumentsOnDiskTest)
#include "test_documents_on_disk.moc"

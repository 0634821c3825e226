// The analyses of the latest profile (core/exec/ProfileAnalysis) in the app:
// TransferSummaryView is the Transfers panel's Summary section (the transfer
// statistics per direction and size class, the time breakdown and what the
// source cannot show, the findings); TimeBreakdownBar is the timeline's bar
// of one iteration split into kernels, delegates, copies and gaps. Both show
// the same numbers as `profile` and `etdump` print, and the Summary the same
// findings across methods as `etdump` for a trace of several methods.
#pragma once

#include <memory>

#include <QWidget>

#include "exec/ProfileAnalysis.h"
#include "exec/Profiler.h"

class QLabel;
class QTableWidget;
class QToolButton;

namespace ptescope::ui {

class TransferSummaryView : public QWidget {
  Q_OBJECT
 public:
  explicit TransferSummaryView(QWidget* parent = nullptr);
  // `acrossMethods`: for a trace of several methods (an imported ETDump),
  // PRF004 across them, listed after the profile's own findings (maybe none);
  // nullptr for any other source.
  // `otherMethod`: without a profile of this method, the method the latest
  // profile measured (said instead of "No profile").
  void setProfile(std::shared_ptr<const exec::TransferProfile> profile,
                  const std::vector<exec::ProfileFinding>* acrossMethods = nullptr, const QString& otherMethod = QString());

  QTableWidget* table() const { return table_; }
  QLabel* breakdown() const { return breakdown_; }
  QLabel* findings() const { return findings_; }

 signals:
  // The section was unfolded (true) or folded.
  void unfolded(bool open);

 private:
  QToolButton* toggle_ = nullptr;
  QWidget* body_ = nullptr;
  QTableWidget* table_ = nullptr;
  QLabel* caption_ = nullptr;  // what the table's counts and totals cover
  QLabel* breakdown_ = nullptr;
  QLabel* findings_ = nullptr;
};

class TimeBreakdownBar : public QWidget {
  Q_OBJECT
 public:
  explicit TimeBreakdownBar(QWidget* parent = nullptr);
  void setProfile(const exec::TransferProfile* profile);
  // "median iteration 120 µs: kernels 20% · delegates not run · copies 50% · gaps 30%"
  QString text() const { return text_; }
  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  struct Part {
    QString name;
    double share = 0;
    QColor color;
  };
  static constexpr int kBarHeight = 10;
  std::vector<Part> parts_;
  QString text_;
};

}  // namespace ptescope::ui

# cmake -DPROGRAM=... -DARGS="a|b" -DOUT=file [-DGZIP=gzip] -P RunToFile.cmake
# Runs PROGRAM with ARGS ('|'-separated) and writes its standard output to
# OUT (then OUT.gz, reproducibly, when GZIP is given); fails the build on a
# non-zero exit. Used to generate the man pages and the completion script.
string(REPLACE "|" ";" _args "${ARGS}")
execute_process(COMMAND "${PROGRAM}" ${_args} OUTPUT_FILE "${OUT}" RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  file(REMOVE "${OUT}")
  message(FATAL_ERROR "${PROGRAM} ${_args}: exit status ${_rc}")
endif()
if(GZIP)
  execute_process(COMMAND "${GZIP}" -9 -n -f -k "${OUT}" RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "gzip ${OUT}: exit status ${_rc}")
  endif()
endif()

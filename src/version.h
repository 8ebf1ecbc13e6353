/* version.h - the release version, shown by --version and in recordings */
#ifndef VP_VERSION_H
#define VP_VERSION_H
#define VMMPROF_VERSION "0.1.0"
#endif

#!/usr/bin/env node
import '../dist/src/svc.js';

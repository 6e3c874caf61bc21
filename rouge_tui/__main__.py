from rouge_tui.cli import main

raise SystemExit(main())

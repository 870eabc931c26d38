(** * proofcheck docs/spec.md §1 in Coq: objects and exact semantics (the trusted definitions)

    Every definition of this file is part of what a reader must trust; everything else
    in [theories/] (the checker and its proofs) is checked by Coq against it.  The
    right-hand comments name the line of docs/spec.md §1 each definition transcribes. *)
From Coq Require Import QArith Qminmax List.
Import ListNotations.
Open Scope Q_scope.

(** ** Numbers as a certificate spells them *)

(** A number is copied from the certificate digit by digit: a decimal literal
    ([-3], [0.125], [1.5e-3]; Coq's [Number.number] keeps every digit) or a
    fraction [p / q] of two integer literals. *)
Inductive num := Dec (n : Number.number) | Frac (p q : Number.number).

(** How certificate files write them: in [cert_scope] a literal [-12], [0.125],
    [1.5e-3] is [Dec] of its digits, and [(p/q)] is [Frac p q] (Coq's parser keeps
    every digit, sign and exponent as written; nothing is computed while parsing). *)
Definition num_of_number (n : Number.number) : num := Dec n.
Definition num_to_number (x : num) : option Number.number :=
  match x with Dec n => Some n | Frac _ _ => None end.
Definition digits_of_number (n : Number.number) : Number.number := n.
Definition digits_to_number (n : Number.number) : option Number.number := Some n.
Declare Scope cert_scope.
Declare Scope cert_digits_scope.
Delimit Scope cert_scope with cert.
Delimit Scope cert_digits_scope with cert_digits.
Number Notation num num_of_number num_to_number : cert_scope.
Number Notation Number.number digits_of_number digits_to_number : cert_digits_scope.
Notation "p / q" := (Frac p%cert_digits q%cert_digits) : cert_scope.

(** The rational a decimal literal spells: the digits of its integer and fractional
    parts read as one integer, divided by [10 ^ (number of fractional digits)],
    times [10 ^ exponent] (the reading of Coq's own [Q] literals). *)
Definition decimal_value (d : Decimal.decimal) : Q :=
  let '(i, f, e) := match d with
                    | Decimal.Decimal i f => (i, f, Decimal.Pos Decimal.Nil)
                    | Decimal.DecimalExp i f e => (i, f, e)
                    end in
  Qmake (Z.of_int (Decimal.app_int i f)) (Nat.iter (Decimal.nb_digits f) (Pos.mul 10) 1%positive)
  * Qpower (10 # 1) (Z.of_int e).

Definition literal_value (n : Number.number) : Q :=
  match n with Number.Decimal d => decimal_value d | Number.Hexadecimal _ => 0 end.

Definition value (x : num) : Q :=
  match x with Dec n => literal_value n | Frac p q => literal_value p / literal_value q end.

(** A certificate's spellings are decimal, and a fraction's denominator is not zero. *)
Definition num_ok (x : num) : Prop :=
  match x with
  | Dec (Number.Decimal _) => True
  | Frac (Number.Decimal _) (Number.Decimal _ as q) => ~ literal_value q == 0
  | _ => False
  end.

(** ** Tokens and sequences                                    (docs/spec.md §1, first bullet) *)

(** A token is [x ∈ ℚ^d], a list of [d] rationals; a sequence is a list of tokens. *)
Definition vec := list Q.

(** Sum of vectors (a shorter one padded with zeros: never the case in a
    well-formed certificate, where every vector has length d). *)
Fixpoint vadd (x y : vec) : vec :=
  match x, y with
  | a :: x', b :: y' => (a + b) :: vadd x' y'
  | [], _ => y
  | _, [] => x
  end.

Definition vscale (c : Q) (x : vec) : vec := map (Qmult c) x.

Fixpoint dot (x y : vec) : Q :=
  match x, y with a :: x', b :: y' => a * b + dot x' y' | _, _ => 0 end.

Definition vsum (xs : list vec) : vec := fold_right vadd [] xs.

(** Two tokens are equal when their coordinates are equal rationals. *)
Definition veq (x y : vec) : Prop := Forall2 Qeq x y.

(** ** Layers (parameters of any number type [R]: [num] as written, [Q] as read) *)

(** [lam I + Σ_r left_r right_rᵀ]                       (docs/spec.md §1, SA: "A and V are stored factored") *)
Record factored (R : Type) := Factored { lam : R; left : list (list R); right : list (list R) }.

(** [FF(x) = η x + W σ(U x + b)]; [U] as its rows, [W] as its columns ([W_k] is the
    column of hidden unit k)                                 (docs/spec.md §1, FF layer) *)
Record ff (R : Type) := FF { eta : R; U : list (list R); b : list R; W : list (list R) }.

(** One attention head: scores [<A x_i, x_l>], values through [V]. *)
Record head (R : Type) := Head { A : factored R; V : factored R }.

(** [SA(X)_i = ρ x_i + Σ_h V_h Σ_l π^h_il x_l]; [causal]: token i attends to l ≤ i
                                                 (docs/spec.md §1, SA layer and "Extensions") *)
Record sa (R : Type) := SA { rho : R; heads : list (head R); causal : bool }.

(** A block: the FF layer first, then SA                     (docs/spec.md §1, Block) *)
Record block (R : Type) := Block { ff_of : ff R; sa_of : sa R }.

Arguments Factored {R}. Arguments lam {R}. Arguments left {R}. Arguments right {R}.
Arguments FF {R}. Arguments eta {R}. Arguments U {R}. Arguments b {R}. Arguments W {R}.
Arguments Head {R}. Arguments A {R}. Arguments V {R}.
Arguments SA {R}. Arguments rho {R}. Arguments heads {R}. Arguments causal {R}.
Arguments Block {R}. Arguments ff_of {R}. Arguments sa_of {R}.

(** ** Exact semantics *)

(** [M x = λ x + Σ_r a_r <b_r, x>] *)
Definition fapply (M : factored Q) (x : vec) : vec :=
  vadd (vscale (lam M) x)
       (vsum (map (fun ab => vscale (dot (snd ab) x) (fst ab)) (combine (left M) (right M)))).

Definition relu (t : Q) : Q := if Qle_bool t 0 then 0 else t.          (* σ = ReLU *)

(** [FF(x) = η x + Σ_k σ(<U_k, x> + b_k) W_k] *)
Definition ff_apply (f : ff Q) (x : vec) : vec :=
  vadd (vscale (eta f) x)
       (vsum (map (fun ubw => let '(u, bk, w) := ubw in vscale (relu (dot u x + bk)) w)
                  (combine (combine (U f) (b f)) (W f)))).

(** Hardmax weights of a score row: [π_l = 1/|C|] on the argmax set
    [C = {l : s_l = max_k s_k}] (exact equality, ties averaged), else 0. *)
Definition hardmax (s : list Q) : list Q :=
  let m := fold_right Qmax (hd 0 s) s in
  let C := length (filter (fun sl => Qeq_bool sl m) s) in
  map (fun sl => if Qeq_bool sl m then 1 / inject_Z (Z.of_nat C) else 0) s.

(** [Σ_l π_il x_l] over the keys, with scores [s_il = <A x_i, x_l>]. *)
Definition attend (A : factored Q) (keys : list vec) (xi : vec) : vec :=
  vsum (map (fun px => vscale (fst px) (snd px))
            (combine (hardmax (map (fun xl => dot (fapply A xi) xl) keys)) keys)).

(** The keys token i (0-based) may attend to: all tokens, or [l ≤ i] under the mask. *)
Definition keys (causal : bool) (i : nat) (X : list vec) : list vec :=
  if causal then firstn (S i) X else X.

Definition sa_token (a : sa Q) (X : list vec) (i : nat) (xi : vec) : vec :=
  vadd (vscale (rho a) xi)
       (vsum (map (fun h => fapply (V h) (attend (A h) (keys (causal a) i X) xi)) (heads a))).

Definition sa_apply (a : sa Q) (X : list vec) : list vec :=
  map (fun ix => sa_token a X (fst ix) (snd ix)) (combine (seq 0 (length X)) X).

Definition block_apply (bl : block Q) (X : list vec) : list vec :=
  sa_apply (sa_of bl) (map (ff_apply (ff_of bl)) X).

(** [T = TB^L ∘ … ∘ TB^1]: the blocks in order.              (docs/spec.md §1, transformer) *)
Definition transformer (net : list (block Q)) (X : list vec) : list vec :=
  fold_left (fun Z bl => block_apply bl Z) net X.

(** ** The claims *)

(** Exact interpolation of one pair: the set of output tokens equals the set of
    target tokens, both inclusions.                          (docs/spec.md §1, exact interpolation) *)
Definition set_equal (out targets : list vec) : Prop :=
  (forall x, In x out -> exists y, In y targets /\ veq x y) /\
  (forall y, In y targets -> exists x, In x out /\ veq x y).

(** Theorem 1.6 on a dataset, per pair: [{T(X_j)_i} = {Y_j,k}]. *)
Definition interpolates (net : list (block Q)) (data : list (list vec * list vec)) : Prop :=
  forall X Y, In (X, Y) data -> set_equal (transformer net X) Y.

(** A lemma certificate's instance: a layer, its stated inputs and, per token, the
    stated output ([None]: the statement says nothing about that token). *)
Inductive layer (R : Type) := FFLayer (f : ff R) | SALayer (a : sa R).
Arguments FFLayer {R}. Arguments SALayer {R}.

Definition layer_apply (l : layer Q) (X : list vec) : list vec :=
  match l with FFLayer f => map (ff_apply f) X | SALayer a => sa_apply a X end.

Definition matches (out : list vec) (expected : list (option vec)) : Prop :=
  length out = length expected /\
  forall i y, nth_error expected i = Some (Some y) ->
              exists x, nth_error out i = Some x /\ veq x y.

Definition instance_holds (l : layer Q) (inputs : list (list vec))
                          (expected : list (list (option vec))) : Prop :=
  length inputs = length expected /\
  forall j X E, nth_error inputs j = Some X -> nth_error expected j = Some E ->
                matches (layer_apply l X) E.

(** ** Reading a certificate: its numbers' values, and its shapes *)

Definition read_vec (x : list num) : vec := map value x.
Definition read_factored (M : factored num) : factored Q :=
  Factored (value (lam M)) (map read_vec (left M)) (map read_vec (right M)).
Definition read_ff (f : ff num) : ff Q :=
  FF (value (eta f)) (map read_vec (U f)) (map value (b f)) (map read_vec (W f)).
Definition read_sa (a : sa num) : sa Q :=
  SA (value (rho a)) (map (fun h => Head (read_factored (A h)) (read_factored (V h))) (heads a))
     (causal a).
Definition read_block (bl : block num) : block Q := Block (read_ff (ff_of bl)) (read_sa (sa_of bl)).
Definition read_net (net : list (block num)) : list (block Q) := map read_block net.
Definition read_seq (X : list (list num)) : list vec := map read_vec X.
Definition read_data (data : list (list (list num) * list (list num))) :=
  map (fun XY => (read_seq (fst XY), read_seq (snd XY))) data.
Definition read_layer (l : layer num) : layer Q :=
  match l with FFLayer f => FFLayer (read_ff f) | SALayer a => SALayer (read_sa a) end.
Definition read_expected (E : list (list (option (list num)))) : list (list (option vec)) :=
  map (map (option_map read_vec)) E.

(** Well-formed: every number is a decimal spelling with a nonzero denominator, every
    vector has length [d], [U], [b], [W] have one entry per hidden unit, [left] and
    [right] one per rank, an SA layer at least one head. *)
Definition vec_ok (d : nat) (x : list num) : Prop := length x = d /\ Forall num_ok x.
Definition factored_ok (d : nat) (M : factored num) : Prop :=
  num_ok (lam M) /\ Forall (vec_ok d) (left M) /\ Forall (vec_ok d) (right M) /\
  length (left M) = length (right M).
Definition ff_ok (d : nat) (f : ff num) : Prop :=
  num_ok (eta f) /\ Forall (vec_ok d) (U f) /\ Forall num_ok (b f) /\ Forall (vec_ok d) (W f) /\
  length (U f) = length (b f) /\ length (U f) = length (W f).
Definition sa_ok (d : nat) (a : sa num) : Prop :=
  num_ok (rho a) /\ heads a <> [] /\
  Forall (fun h => factored_ok d (A h) /\ factored_ok d (V h)) (heads a).
Definition net_ok (d : nat) (net : list (block num)) : Prop :=
  Forall (fun bl => ff_ok d (ff_of bl) /\ sa_ok d (sa_of bl)) net.
Definition seq_ok (d : nat) (X : list (list num)) : Prop := X <> [] /\ Forall (vec_ok d) X.
Definition data_ok (d : nat) (data : list (list (list num) * list (list num))) : Prop :=
  Forall (fun XY => seq_ok d (fst XY) /\ seq_ok d (snd XY)) data.

(** The claim of a Theorem 1.6 certificate (or of a chunk of its pairs). *)
Definition theorem_1_6 (d : nat) (net : list (block num))
                       (data : list (list (list num) * list (list num))) : Prop :=
  net_ok d net /\ data_ok d data /\ interpolates (read_net net) (read_data data).

(** The claim of a lemma certificate's instance. *)
Definition layer_ok (d : nat) (l : layer num) : Prop :=
  match l with FFLayer f => ff_ok d f | SALayer a => sa_ok d a end.
Definition instance (d : nat) (l : layer num) (inputs : list (list (list num)))
                    (expected : list (list (option (list num)))) : Prop :=
  layer_ok d l /\ Forall (seq_ok d) inputs /\
  Forall (Forall (fun e => match e with Some y => vec_ok d y | None => True end)) expected /\
  instance_holds (read_layer l) (map read_seq inputs) (read_expected expected).
